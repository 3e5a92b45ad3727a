/* Replaying the memory syscalls for replay_syscall.c: mmap of stored files
 * maps the replay's own copies, madvise applies exactly the recorded
 * dropped ranges (it never runs), SysV shm segments are files shared by
 * every attach of an id. */
#define _GNU_SOURCE
#include "replay/replay_syscall_int.h"
#include "core/events.h"
#include "core/log.h"
#include "replay/checkpoint_files.h"
#include "replay/cleanup.h"
#include "replay/session.h"
#include "syscalls/table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

/* The replay's own writable copy of a stored file, so that writes through
 * mappings never touch the trace: one per recorded file (ident), which
 * takes each stored version of that file in turn. Files that held the same
 * bytes share a stored name but never a copy. Ident 0 (older traces): one
 * copy per name. */
int replay_private_copy(struct replayer *rp, const char *name, uint32_t ident,
			const char *src, char *buf, size_t buflen)
{
	struct file_copy *c = NULL;
	int in, out, err = 0;
	size_t i;

	if (!rp->tmpdir[0]) {
		err = replay_tmpdir_create(rp->tmpdir, sizeof(rp->tmpdir));
		if (err) {
			rp->tmpdir[0] = 0;
			return err;
		}
	}
	for (i = 0; i < rp->ncopies && !c; i++)
		if (!strcmp(rp->copies[i].name, name) &&
		    (!ident || rp->copies[i].ident == ident))
			c = &rp->copies[i];
	if (!c) {
		if (rp->ncopies % 16 == 0) {
			c = realloc(rp->copies,
				    (rp->ncopies + 16) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			rp->copies = c;
		}
		c = &rp->copies[rp->ncopies++];
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", name);
		c->ident = ident;
	}
	/* an older trace's write names the version only: its file is the
	 * one last mapped */
	ident = c->ident;
	if ((ident ? snprintf(buf, buflen, "%s/file-%u", rp->tmpdir, ident)
		   : snprintf(buf, buflen, "%s/%s", rp->tmpdir, name)) >=
	    (int)buflen)
		return -ENAMETOOLONG;
	if (c->loaded)
		return 0;
	/* Another version of the same file was loaded: the file changed at
	 * record (mostly through writes the replay applied already); its
	 * copy takes the new content in place, so that every mapping of it
	 * stays one file, as at record. */
	out = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0)
		return -errno;
	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (in < 0) {
		err = -errno;
		goto out_close_out;
	}
	/* in place: truncating first would take away the copied-on-write
	 * pages of private mappings of it (in checkpoints, too) */
	err = cp_file_overwrite(in, out);
	if (err > 0)
		err = 0;
	close(in);
	if (!err) {
		for (i = 0; i < rp->ncopies; i++)
			if (ident && rp->copies[i].ident == ident)
				rp->copies[i].loaded = false;
		c->loaded = true;
	}
out_close_out:
	close(out);
	return err;
}

/* The task's fd open on path with access mode accmode, which an earlier
 * mapping left open, or -1. */
static int64_t task_fd_on(struct ptask *t, const char *path, int accmode)
{
	char dir[64], link[384], target[PATH_MAX], line[128];
	struct dirent *de;
	int64_t found = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", t->t.tid);
	d = opendir(dir);
	if (!d)
		return -1;
	while (found < 0 && (de = readdir(d))) {
		ssize_t n;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		if (strcmp(target, path))
			continue;
		snprintf(link, sizeof(link), "/proc/%d/fdinfo/%s", t->t.tid,
			 de->d_name);
		f = fopen(link, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags:", 6) &&
			    (strtol(line + 6, NULL, 8) & O_ACCMODE) == accmode)
				found = strtol(de->d_name, NULL, 10);
		fclose(f);
	}
	closedir(d);
	return found;
}

/* Maps path into the task as the current mmap event says, at its recorded
 * address, through the task's stopped syscall when regs is given (else
 * injected). The file stays open in the task (close-on-exec), and later
 * mappings of it use that open file: mappings of one open file merge into
 * one VMA where they touch, which the program's mremap may depend on, and
 * separate opens never merge. Returns the task's fd, with the mmap's
 * result in *ret, or -1 (reported). */
static int64_t map_file(struct replayer *rp, struct ptask *t,
			struct user_regs_struct *regs, const char *path,
			bool shared, uint64_t flags, int64_t *ret)
{
	const struct mrr_event *ev = &rp->ev;
	uint64_t scratch = MRR_PAGE_ADDR + MRR_PAGE_SCRATCH;
	int oflags = (shared ? O_RDWR : O_RDONLY) | O_CLOEXEC;
	int64_t fd = task_fd_on(t, path, oflags & O_ACCMODE);

	if (fd < 0) {
		if (tracee_write_all(&t->t, scratch, path, strlen(path) + 1) <
		    0) {
			diverge(rp, t, "cannot write into mrr's page");
			return -1;
		}
		if (regs ? replay_replace_and_run(rp, t, regs, SYS_openat,
						  (uint64_t)AT_FDCWD, scratch,
						  (uint64_t)oflags, 0, &fd)
			 : replay_inject(rp, t, SYS_openat, (uint64_t)AT_FDCWD,
					 scratch, (uint64_t)oflags, 0, 0, 0,
					 &fd))
			return -1;
		regs = NULL; /* the program's call is used up */
		if (fd < 0) {
			diverge(rp, t, "cannot open the stored copy %s: %s",
				path, strerror((int)-fd));
			return -1;
		}
	}
	if (regs) {
		regs->r8 = (uint64_t)fd;
		regs->r9 = ev->args[5];
		if (replay_replace_and_run(rp, t, regs, SYS_mmap,
					   (uint64_t)ev->result, ev->args[1],
					   ev->args[2], flags, ret) < 0)
			return -1;
	} else if (replay_inject(rp, t, SYS_mmap, (uint64_t)ev->result,
				 ev->args[1], ev->args[2], flags, (uint64_t)fd,
				 ev->args[5], ret) < 0) {
		return -1;
	}
	return fd;
}

/* An anonymous MAP_HUGETLB mapping, set up to be made at its recorded
 * address: the replay's machine may have no free huge page (the program
 * reserved them through /proc/sys/vm/nr_hugepages, a write the replay does
 * not make). Then it gets an ordinary shared or private anonymous mapping
 * there, of the huge pages' whole length. */
static void replay_mmap_huge(struct replayer *rp, struct ptask *t,
			     uint64_t flags)
{
	const struct mrr_event *ev = &rp->ev;
	unsigned shift = (unsigned)(flags >> MAP_HUGE_SHIFT) & MAP_HUGE_MASK;
	uint64_t huge = shift ? 1ull << shift : 2ull << 20;
	uint64_t len = (ev->args[1] + huge - 1) & ~(huge - 1);
	struct user_regs_struct r;
	int64_t ret;

	if (run_to_exit(rp, t) < 0 || tracee_get_regs(&t->t, &r) < 0)
		return;
	if ((int64_t)r.rax != ev->result) {
		flags &= ~((uint64_t)MAP_HUGETLB |
			   ((uint64_t)MAP_HUGE_MASK << MAP_HUGE_SHIFT));
		if (replay_inject(rp, t, SYS_mmap, (uint64_t)ev->result, len,
				  ev->args[2], flags, (uint64_t)-1, 0,
				  &ret) < 0)
			return;
		if (ret != ev->result) {
			diverge(rp, t,
				"mmap of huge pages returned 0x%llx at replay, "
				"and of ordinary pages in their place "
				"0x%" PRIx64 ", at record 0x%" PRIx64,
				r.rax, (uint64_t)ret, (uint64_t)ev->result);
			return;
		}
		mrr_debug("event %" PRIu64 ": no huge page at replay; "
			  "ordinary pages at 0x%" PRIx64,
			  ev->seq, (uint64_t)ev->result);
	}
	if (replay_set_result(rp, t, ev->result) == 0)
		apply_writes(rp, t, ev);
}

void replay_mmap(struct replayer *rp, struct ptask *t,
		 struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_mmap_extra *x = ev->extra;
	uint64_t flags = ev->args[3], addr = (uint64_t)ev->result;
	char path[PATH_MAX], copy[PATH_MAX];
	int64_t fd, ret;
	bool shared = flags & MAP_SHARED;
	int err;

	if (ev->result < 0 && ev->result > -4096) {
		replay_emulate(rp, t, regs);
		return;
	}
	if (replay_refuse_mrr_page(rp, addr, ev->args[1]))
		return;
	/* Place it where it was; locks are not replayed. */
	flags = (flags & ~(uint64_t)(MAP_LOCKED | MAP_FIXED_NOREPLACE)) |
		MAP_FIXED;
	if (ev->extra_len < sizeof(*x)) {
		/* anonymous, or a device like /dev/zero */
		regs->rdi = addr;
		regs->r10 = flags | MAP_ANONYMOUS;
		regs->r8 = (uint64_t)-1;
		regs->r9 = 0;
		if (tracee_set_regs(&t->t, regs) < 0)
			return;
		if (flags & MAP_HUGETLB)
			replay_mmap_huge(rp, t, flags | MAP_ANONYMOUS);
		else
			replay_execute(rp, t, true);
		return;
	}
	if (stored_path(rp, x->file, path, sizeof(path)))
		return;
	/* Mappings of one file must share its pages, as at record, and see
	 * writes made to it, and adjacent ones must merge into one VMA where
	 * they did (an mremap over both fails otherwise): all map one
	 * writable copy. The stored file itself is never mapped writable: it
	 * may be a hard link to someone's original file, which replayed bytes
	 * must never reach, or be the program the replay runs (Text file
	 * busy). It serves only private code when the copy's file system
	 * does not allow execution. */
	err = replay_private_copy(rp, x->file, x->ident, path, copy,
				  sizeof(copy));
	if (err < 0) {
		/* (ENOSPC: the replay's copies live under $TMPDIR) */
		diverge(rp, t, "cannot copy stored file %s into %s: %s",
			x->file, rp->tmpdir[0] ? rp->tmpdir : "$TMPDIR",
			strerror(-err));
		return;
	}
	/* a mapping that could not become writable at record comes from
	 * a read-only open of the copy, so that mprotect fails alike */
	fd = map_file(rp, t, regs, copy,
		      shared && !(x->shared & MRR_MMAP_NO_WRITE), flags, &ret);
	if (fd >= 0 && ret == -EPERM && !shared)
		fd = map_file(rp, t, NULL, path, false, flags, &ret);
	if (fd < 0)
		return;
	if (ret != (int64_t)addr) {
		diverge(rp, t,
			"mmap of the stored copy of %s returned 0x%" PRIx64
			", at record 0x%" PRIx64,
			x->file, (uint64_t)ret, addr);
		return;
	}
	if (replay_set_result(rp, t, ev->result) == 0)
		apply_writes(rp, t, ev); /* rewritten rdtsc sites */
}

static bool destroys_content(uint64_t advice)
{
	return advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED ||
	       advice == MADV_REMOVE || advice == MADV_FREE;
}

/* Advice that changes VMAs or what fork does: the replay must have it. */
static bool executed_advice(uint64_t advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WIPEONFORK:
	case MADV_KEEPONFORK:
	case MADV_DONTFORK:
	case MADV_DOFORK:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_MERGEABLE:
	case MADV_UNMERGEABLE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case 102: /* MADV_GUARD_INSTALL */
	case 103: /* MADV_GUARD_REMOVE */
		return true;
	}
	return false;
}

void replay_madvise(struct replayer *rp, struct ptask *t,
		    struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_madvise_extra *x = ev->extra;
	const struct mrr_drop_range *ranges;
	uint64_t advice = ev->args[2];
	int64_t ret;
	uint32_t i;
	bool first = true;

	if (!destroys_content(advice)) {
		if (executed_advice(advice))
			replay_execute(rp, t, false);
		else
			replay_emulate(rp, t, regs);
		return;
	}
	if (ev->extra_len < sizeof(*x) || x->nranges == 0) {
		replay_emulate(rp, t, regs);
		return;
	}
	if ((uint64_t)ev->extra_len !=
	    sizeof(*x) + (uint64_t)x->nranges * sizeof(*ranges) +
		    (uint64_t)x->nlocked * sizeof(struct mrr_locked_range)) {
		mrr_err("trace %s: madvise event %" PRIu64
			" has a malformed range list",
			rp->o->trace_dir, ev->seq);
		rp->status = 65;
		return;
	}
	ranges = (const void *)(x + 1);
	for (i = 0; i < x->nranges; i++) {
		const struct mrr_drop_range *d = &ranges[i];
		uint64_t how;

		if (d->fill == MRR_FILL_KEEP)
			continue;
		if (d->end <= d->start || (d->start & 4095) ||
		    (d->end & 4095)) {
			mrr_err("trace %s: madvise event %" PRIu64
				" has a bad range",
				rp->o->trace_dir, ev->seq);
			rp->status = 65;
			return;
		}
		if (replay_refuse_mrr_page(rp, d->start, d->end - d->start))
			return;
		how = d->fill == MRR_FILL_HOLE ? MADV_REMOVE : MADV_DONTNEED;
		if (first) {
			first = false;
			if (replay_replace_and_run(rp, t, regs, SYS_madvise,
						   d->start, d->end - d->start,
						   how, 0, &ret) < 0)
				return;
		} else if (replay_inject(rp, t, SYS_madvise, d->start,
					 d->end - d->start, how, 0, 0, 0,
					 &ret) < 0) {
			return;
		}
		if (ret == 0)
			replay_mem_written(rp, t, d->start, d->end - d->start,
					   ev->seq);
		if (ret != 0) {
			diverge(rp, t,
				"dropping recorded range 0x%" PRIx64
				"-0x%" PRIx64 " failed: %s",
				d->start, d->end, strerror((int)-ret));
			return;
		}
	}
	if (first) {
		replay_emulate(rp, t, regs);
		return;
	}
	replay_set_result(rp, t, ev->result);
}

/* SysV shared memory has no segment at replay. Each recorded segment id is
 * backed by one file in the replay's private directory, created at its
 * first attach: every attach of that id, in any process, maps that file
 * shared at the recorded address, so processes that attach separately
 * share the pages as they did at record (and children forked after an
 * attach share them through fork). The attach event's recorded memory is
 * what the segment held then. */
static int shm_file(struct replayer *rp, uint64_t shmid, uint64_t size,
		    char *path, size_t pathlen)
{
	int fd, err = 0;

	if (!rp->tmpdir[0] &&
	    (err = replay_tmpdir_create(rp->tmpdir, sizeof(rp->tmpdir)))) {
		rp->tmpdir[0] = 0;
		return err;
	}
	if (snprintf(path, pathlen, "%s/shm-%" PRIu64, rp->tmpdir, shmid) >=
	    (int)pathlen)
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	{
		struct stat st;

		if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < size)
			err = ftruncate(fd, (off_t)size) < 0 ? -errno : 0;
	}
	close(fd);
	return err;
}

void replay_shm(struct replayer *rp, struct ptask *t,
		struct user_regs_struct *regs)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_shm_extra *x = ev->extra;
	uint64_t scratch = MRR_PAGE_ADDR + MRR_PAGE_SCRATCH;
	uint64_t prot = PROT_READ | PROT_WRITE;
	char path[PATH_MAX];
	int64_t ret, fd;
	int err;

	if (ev->result < 0 || ev->extra_len != sizeof(*x) || !x->size) {
		replay_emulate(rp, t, regs);
		return;
	}
	if (ev->nr == SYS_shmdt) {
		if (replay_replace_and_run(rp, t, regs, SYS_munmap, ev->args[0],
					   x->size, 0, 0, &ret) == 0)
			replay_set_result(rp, t, ev->result);
		return;
	}
	if (replay_refuse_mrr_page(rp, (uint64_t)ev->result, x->size))
		return;
	if (ev->args[2] & SHM_RDONLY)
		prot = PROT_READ;
	if (ev->args[2] & SHM_EXEC)
		prot |= PROT_EXEC;
	err = shm_file(rp, ev->args[0], x->size, path, sizeof(path));
	if (err) {
		diverge(rp, t,
			"cannot make the file for shared memory segment "
			"%" PRIu64 ": %s",
			ev->args[0], strerror(-err));
		return;
	}
	if (tracee_write_all(&t->t, scratch, path, strlen(path) + 1) < 0) {
		diverge(rp, t, "cannot write into mrr's page");
		return;
	}
	/* the program's shmat becomes the open; the mapping follows */
	if (replay_replace_and_run(rp, t, regs, SYS_openat, (uint64_t)AT_FDCWD,
				   scratch, O_RDWR | O_CLOEXEC, 0, &fd) < 0)
		return;
	if (fd < 0) {
		diverge(rp, t, "cannot open the file for shared memory: %s",
			strerror((int)-fd));
		return;
	}
	/* writable first: the kernel refuses forced writes to a read-only
	 * shared mapping */
	if (replay_inject(rp, t, SYS_mmap, (uint64_t)ev->result, x->size,
			  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			  (uint64_t)fd, 0, &ret) < 0)
		return;
	replay_inject(rp, t, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0, &fd);
	if (ret != ev->result) {
		diverge(rp, t,
			"cannot map the shared memory segment at 0x%" PRIx64,
			(uint64_t)ev->result);
		return;
	}
	if (replay_set_result(rp, t, ev->result) < 0 ||
	    apply_writes(rp, t, ev) < 0)
		return;
	if (prot != (PROT_READ | PROT_WRITE))
		replay_inject(rp, t, SYS_mprotect, (uint64_t)ev->result,
			      x->size, prot, 0, 0, 0, &ret);
}
