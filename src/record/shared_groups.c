/* Processes that share writable memory. A private mapping is copied at
 * fork and so never shared; a shared one is the same pages in parent and
 * child. Shared views of regular files that neither can write are left
 * out: only processes outside the recording could change them, and mrr
 * does not see those anyway (README, Limits). */
#include "record/shared_groups.h"

#include "core/log.h"
#include "core/proc.h"
#include "core/tracee.h"
#include "record/rtask.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* Shared memory objects: whatever the view's protection, another view of
 * the same pages may be writable. */
static bool shared_memory_object(const char *name)
{
	return !name[0] || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/SYSV", 5) ||
	       !strncmp(name, "/dev/shm/", 9);
}

bool rec_shares_writable(struct recorder *rec, struct rtask *parent)
{
	struct proc_vma *v = NULL;
	long n, i;
	bool shares = false;

	(void)rec;
	n = proc_read_vmas(parent->t.tid, false, &v);
	for (i = 0; i < n && !shares; i++) {
		if (!v[i].shared ||
		    (v[i].start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		     v[i].end > MRR_PAGE_ADDR))
			continue;
		if ((v[i].prot & PROT_WRITE) ||
		    shared_memory_object(v[i].name)) {
			mrr_debug(
				"threads: pid %d shares 0x%llx-0x%llx %s with "
				"its child: they run one at a time",
				parent->tgid, (unsigned long long)v[i].start,
				(unsigned long long)v[i].end,
				v[i].name[0] ? v[i].name : "(anonymous)");
			shares = true;
		}
	}
	free(v);
	return shares;
}

/* ---- memory mapped after the fork ---- */

/* A shared memory object some recorded process mapped shared: a file,
 * memfd or POSIX shm (its device and inode), or a SysV segment (SHM_DEV,
 * its id). Entries are never dropped: a process that unmapped it, exec'd
 * or died may merge a group too many, which costs parallelism only. */
#define SHM_DEV UINT64_MAX
struct shared_obj {
	uint64_t dev, ino;
	pid_t tgid;
	bool writable; /* that process's view may write (now or later) */
};
static struct shared_obj *objs;
static size_t nobjs, objs_cap;

static void obj_add(uint64_t dev, uint64_t ino, pid_t tgid, bool writable)
{
	size_t i;

	for (i = 0; i < nobjs; i++)
		if (objs[i].dev == dev && objs[i].ino == ino &&
		    objs[i].tgid == tgid) {
			objs[i].writable |= writable;
			return;
		}
	if (nobjs == objs_cap) {
		size_t ncap = objs_cap ? objs_cap * 2 : 16;
		struct shared_obj *g = realloc(objs, ncap * sizeof(*g));

		if (!g)
			return; /* fewer merges: the old behaviour */
		objs = g;
		objs_cap = ncap;
	}
	objs[nobjs++] = (struct shared_obj){dev, ino, tgid, writable};
}

/* Whether fd of t is open for writing (its mapping may be made writable
 * with mprotect). */
static bool fd_writable(struct rtask *t, int fd)
{
	char path[64], line[128];
	unsigned long flags = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid, fd);
	f = fopen(path, "re");
	if (!f)
		return true; /* cannot tell: assume it may write */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &flags) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return !found || (flags & O_ACCMODE) != O_RDONLY;
}

static bool obj_known(uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < nobjs; i++)
		if (objs[i].dev == dev && objs[i].ino == ino)
			return true;
	return false;
}

/* A write, pwrite, ftruncate or fallocate through fd of t into a file some
 * recorded process maps shared: a store into that memory. */
static bool writes_mapped_file(struct rtask *t, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat st;

	switch (t->nr) {
	case SYS_write:
	case SYS_pwrite64:
	case SYS_writev:
	case SYS_pwritev:
	case SYS_pwritev2:
	case SYS_ftruncate:
	case SYS_fallocate:
		break;
	default:
		return false;
	}
	if (!nobjs) /* nothing is mapped shared: no stat per write */
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid,
		 (int)t->args[0]);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    !obj_known(st.st_dev, st.st_ino))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/* The object t's syscall at its entry maps shared, if any. */
static bool mapped_object(struct rtask *t, uint64_t *dev, uint64_t *ino,
			  bool *writable)
{
	char path[64];
	struct stat st;

	if (t->nr == SYS_shmat) {
		*dev = SHM_DEV;
		*ino = t->args[0];
		*writable = !(t->args[2] & SHM_RDONLY);
		return true;
	}
	if (t->nr != SYS_mmap || (t->args[3] & MAP_ANONYMOUS) ||
	    !(t->args[3] & (MAP_SHARED | MAP_SHARED_VALIDATE)))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid,
		 (int)t->args[4]);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	*writable =
		(t->args[2] & PROT_WRITE) || fd_writable(t, (int)t->args[4]);
	return true;
}

/* Moves every task of from into into; returns from's runner (NULL when
 * none of its tasks runs user code). */
static struct rtask *merge(struct recorder *rec, struct rgroup *into,
			   struct rgroup *from)
{
	struct rtask *u, *running = from->runner;

	for (u = rec->tasks; u; u = u->next)
		if (u->grp == from) {
			u->grp = into;
			into->nmembers++;
		}
	free(from);
	return running;
}

bool rec_shared_merge(struct recorder *rec, struct rtask *t)
{
	struct rtask *running = NULL;
	uint64_t dev, ino;
	bool writable;
	size_t i;

	if (writes_mapped_file(t, &dev, &ino))
		writable = true; /* the writer need not map it itself */
	else if (mapped_object(t, &dev, &ino, &writable))
		obj_add(dev, ino, t->tgid, writable);
	else
		return false;
	for (i = 0; i < nobjs; i++) {
		struct shared_obj *o = &objs[i];
		struct rtask *u;

		if (o->dev != dev || o->ino != ino || o->tgid == t->tgid ||
		    !(writable || o->writable))
			continue;
		for (u = rec->tasks; u; u = u->next) {
			struct rtask *r;

			if (u->tgid != o->tgid || !u->grp || u->grp == t->grp)
				continue;
			mrr_debug("threads: pid %d maps memory pid %d shares: "
				  "they run one at a time",
				  t->tgid, u->tgid);
			r = merge(rec, t->grp, u->grp);
			if (r && !running)
				running = r;
			break;
		}
	}
	if (!running)
		return false;
	/* one of them runs user code now: it keeps the slot */
	t->grp->runner = running;
	return true;
}

void rec_shared_fork(struct rtask *parent, struct rtask *child)
{
	size_t i, n = nobjs;

	for (i = 0; i < n; i++)
		if (objs[i].tgid == parent->tgid)
			obj_add(objs[i].dev, objs[i].ino, child->tgid,
				objs[i].writable);
}
