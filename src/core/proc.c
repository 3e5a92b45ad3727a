#include "core/proc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse_maps_line(const char *line, struct proc_vma *v)
{
	char perms[8] = "";
	unsigned long long start, end, off;
	int name_at = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
		   &off, &name_at) < 4)
		return -1;
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->end = end;
	v->offset = off;
	v->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		  (perms[1] == 'w' ? PROT_WRITE : 0) |
		  (perms[2] == 'x' ? PROT_EXEC : 0);
	v->shared = perms[3] == 's';
	if (name_at > 0) {
		snprintf(v->name, sizeof(v->name), "%s", line + name_at);
		v->name[strcspn(v->name, "\n")] = 0;
	}
	v->anon = v->name[0] != '/';
	return 0;
}

long proc_read_vmas(pid_t pid, bool with_flags, struct proc_vma **out)
{
	char path[64], line[512];
	struct proc_vma *vmas = NULL, *grown;
	size_t n = 0, cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid,
		 with_flags ? "smaps" : "maps");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct proc_vma v;

		if (with_flags && n && strncmp(line, "VmFlags:", 8) == 0) {
			vmas[n - 1].locked = strstr(line, " lo") != NULL;
			continue;
		}
		if (parse_maps_line(line, &v))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(vmas, cap * sizeof(*vmas));
			if (!grown) {
				free(vmas);
				fclose(f);
				return -ENOMEM;
			}
			vmas = grown;
		}
		vmas[n++] = v;
	}
	fclose(f);
	*out = vmas;
	return (long)n;
}

uint64_t proc_stack_end(pid_t pid)
{
	struct proc_vma *v;
	uint64_t end = 0;
	long n = proc_read_vmas(pid, false, &v), i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, "[stack]") == 0)
			end = v[i].end;
	if (n > 0)
		free(v);
	return end;
}

int elf_interp(const char *path, char *buf, size_t buflen)
{
	Elf64_Ehdr eh;
	int fd, err = 0, i;

	buf[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr)) {
		err = -ENOEXEC;
		goto out_close_fd;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    sizeof(ph)) {
			err = -ENOEXEC;
			goto out_close_fd;
		}
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz >= buflen) {
			err = -ENAMETOOLONG;
			goto out_close_fd;
		}
		if (pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) !=
		    (ssize_t)ph.p_filesz) {
			err = -ENOEXEC;
			goto out_close_fd;
		}
		buf[ph.p_filesz] = 0;
		break;
	}
out_close_fd:
	close(fd);
	return err;
}

static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0)
		return -EACCES;
	return 0;
}

int resolve_program(const char *prog, char *buf, size_t buflen)
{
	const char *path, *p;
	int first_err = -ENOENT;

	if (!prog[0])
		return -ENOENT;
	if (strchr(prog, '/')) {
		if ((size_t)snprintf(buf, buflen, "%s", prog) >= buflen)
			return -ENAMETOOLONG;
		return check_executable(buf);
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = strchr(p, ':') + 1) {
		size_t len = strcspn(p, ":");
		int err;

		if ((size_t)snprintf(buf, buflen, "%.*s/%s", (int)len,
				     len ? p : ".", prog) < buflen) {
			err = check_executable(buf);
			if (!err)
				return 0;
			if (err != -ENOENT && first_err == -ENOENT)
				first_err = err;
		}
		if (!strchr(p, ':'))
			break;
	}
	return first_err;
}

void remove_flat_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (dp) {
		while ((d = readdir(dp))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			unlink(path);
		}
		closedir(dp);
	}
	rmdir(dir);
}

/* /proc/TID/status of the last few tasks asked about, kept open: a read at
 * offset 0 makes the file again (a signal stop asks once or twice, and the
 * open, its fstat and stdio's reads were five of the recorder's syscalls
 * there). A file whose task is gone answers ESRCH, and the next task with
 * that tid gets a file of its own. */
#define STATUS_FDS 8
static struct {
	pid_t tid; /* 0: a free entry */
	int fd;
} status_fds[STATUS_FDS];
static unsigned status_next;

static ssize_t status_read(pid_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	unsigned i;
	int fd;

	for (i = 0; i < STATUS_FDS; i++) {
		if (!status_fds[i].tid || status_fds[i].tid != tid)
			continue;
		n = pread(status_fds[i].fd, buf, len, 0);
		if (n > 0)
			return n;
		close(status_fds[i].fd);
		status_fds[i].tid = 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, 0);
	if (n <= 0) {
		close(fd);
		return -1;
	}
	i = status_next++ % STATUS_FDS;
	if (status_fds[i].tid)
		close(status_fds[i].fd);
	status_fds[i].tid = tid;
	status_fds[i].fd = fd;
	return n;
}

int proc_sigmasks(pid_t tid, struct proc_sigmasks *m)
{
	char buf[4096], *line, *next;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	n = status_read(tid, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (line = buf; line && *line; line = next) {
		uint64_t *dst = NULL;

		next = strchr(line, '\n');
		if (next)
			next++;
		if (!strncmp(line, "SigPnd:", 7) ||
		    !strncmp(line, "ShdPnd:", 7)) {
			m->pending |= strtoull(line + 7, NULL, 16);
			continue;
		}
		if (!strncmp(line, "SigBlk:", 7))
			dst = &m->blocked;
		else if (!strncmp(line, "SigIgn:", 7))
			dst = &m->ignored;
		else if (!strncmp(line, "SigCgt:", 7))
			dst = &m->caught;
		if (dst)
			*dst = strtoull(line + 7, NULL, 16);
	}
	return 0;
}

int proc_task_syscall(pid_t tid, struct proc_syscall *s)
{
	char path[64], buf[512], *p, *end;
	uint64_t v[8];
	int i, want;
	ssize_t n;
	int fd;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/%d/syscall", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (!strncmp(buf, "running", 7))
		return 0;
	s->nr = strtol(buf, &end, 10);
	if (end == buf)
		return -1;
	/* "NR ARG0..ARG5 SP PC", or "-1 SP PC" outside a call */
	want = s->nr >= 0 ? 8 : 2;
	for (i = 0, p = end; i < want; i++, p = end) {
		v[i] = strtoull(p, &end, 16);
		if (end == p)
			return -1;
	}
	if (s->nr >= 0)
		memcpy(s->args, v, sizeof(s->args));
	s->sp = v[want - 2];
	s->pc = v[want - 1];
	return 1;
}

char proc_task_state(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the name may hold anything */
	return p && p[1] == ' ' ? p[2] : 0;
}
