/* nnp_status: /proc/PID/status shows the task's own no_new_privs and
 * seccomp state ("NoNewPrivs:", "Seccomp:", "Seccomp_filters:") and no
 * tracer ("TracerPid: 0"), not the
 * settings mrr needs for its own filter (LTP prctl06 read "NoNewPrivs: 1"
 * before it set the bit). It reads its status through read, pread, readv
 * and stdio, by the names self, thread-self, PID and PID/task/TID, before
 * and after PR_SET_NO_NEW_PRIVS and after installing a filter of its own,
 * and checks every answer against prctl's. A child in seccomp strict mode
 * reads its status from an fd it opened before and must see "Seccomp: 1".
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

/* The number after word in the status text, or -1. */
static long field(const char *text, const char *word)
{
	const char *p = text;
	size_t n = strlen(word);

	while (p && *p) {
		if (!strncmp(p, word, n))
			return strtol(p + n, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* Reads the file at path one of four ways into buf. */
static void read_status(const char *path, int how, char *buf, size_t size)
{
	struct iovec iov[2];
	ssize_t n = 0;
	FILE *f;
	int fd;

	memset(buf, 0, size);
	if (how == 3) {
		size_t used = 0;

		f = fopen(path, "re");
		MT_CHECK(f != NULL, "%s: %s", path, strerror(errno));
		while (used + 1 < size && fgets(buf + used, size - used, f))
			used += strlen(buf + used);
		fclose(f);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	MT_CHECK(fd >= 0, "%s: %s", path, strerror(errno));
	switch (how) {
	case 0:
		n = read(fd, buf, size - 1);
		break;
	case 1:
		n = pread(fd, buf, size - 1, 0);
		break;
	case 2: /* two vectors: the lines may straddle them */
		iov[0].iov_base = buf;
		iov[0].iov_len = 100;
		iov[1].iov_base = buf + 100;
		iov[1].iov_len = size - 101;
		n = readv(fd, iov, 2);
		break;
	}
	MT_CHECK(n > 0, "reading %s (way %d): %s", path, how, strerror(errno));
	close(fd);
}

static void check_all(const char *when, long nnp, long mode, long filters)
{
	static const char *const ways[] = {"read", "pread", "readv", "stdio"};
	char path[4][96], buf[8192];
	long got_mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);

	MT_CHECK(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == nnp,
		 "%s: PR_GET_NO_NEW_PRIVS", when);
	MT_CHECK(got_mode == mode, "%s: PR_GET_SECCOMP %ld, want %ld", when,
		 got_mode, mode);
	snprintf(path[0], sizeof(path[0]), "/proc/self/status");
	snprintf(path[1], sizeof(path[1]), "/proc/thread-self/status");
	snprintf(path[2], sizeof(path[2]), "/proc/%d/status", (int)getpid());
	snprintf(path[3], sizeof(path[3]), "/proc/%d/task/%d/status",
		 (int)getpid(), (int)gettid());
	for (int p = 0; p < 4; p++)
		for (int w = 0; w < 4; w++) {
			read_status(path[p], w, buf, sizeof(buf));
			MT_CHECK(field(buf, "TracerPid:") == 0,
				 "%s: %s by %s: TracerPid %ld", when, path[p],
				 ways[w], field(buf, "TracerPid:"));
			MT_CHECK(field(buf, "NoNewPrivs:") == nnp &&
					 field(buf, "Seccomp:") == mode &&
					 field(buf, "Seccomp_filters:") ==
						 filters,
				 "%s: %s by %s: NoNewPrivs %ld Seccomp %ld "
				 "Seccomp_filters %ld, want %ld %ld %ld",
				 when, path[p], ways[w],
				 field(buf, "NoNewPrivs:"),
				 field(buf, "Seccomp:"),
				 field(buf, "Seccomp_filters:"), nnp, mode,
				 filters);
		}
	printf("%s: NoNewPrivs %ld Seccomp %ld Seccomp_filters %ld\n", when,
	       nnp, mode, filters);
}

/* A child that enters strict mode and reads its status there. */
static void strict_child(void)
{
	char buf[8192] = {0};
	int fds[2], status;
	long n;
	pid_t pid;

	MT_SYS(pipe(fds));
	fflush(stdout);
	pid = fork();
	MT_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/proc/self/status", O_RDONLY);

		if (fd < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) < 0)
			syscall(SYS_exit, 1);
		n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
		if (n > 0)
			syscall(SYS_write, fds[1], buf, n);
		syscall(SYS_exit, 0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	MT_SYS(waitpid(pid, &status, 0));
	MT_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		 "strict child: status 0x%x", status);
	MT_CHECK(n > 0, "strict child sent nothing");
	buf[n] = 0;
	MT_CHECK(field(buf, "Seccomp:") == 1 &&
			 field(buf, "Seccomp_filters:") == 0,
		 "strict child: Seccomp %ld Seccomp_filters %ld",
		 field(buf, "Seccomp:"), field(buf, "Seccomp_filters:"));
	printf("strict child: Seccomp 1 Seccomp_filters 0\n");
	close(fds[0]);
}

int main(void)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = 1, .filter = allow};
	long nnp;

	mt_init();
	nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	MT_CHECK(nnp == 0, "the harness runs this without no_new_privs");
	check_all("at start", 0, 0, 0);
	strict_child();
	MT_SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	check_all("after PR_SET_NO_NEW_PRIVS", 1, 0, 0);
	MT_SYS(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
	check_all("after a filter", 1, 2, 1);
	printf("PASS\n");
	return 0;
}
