/* Recording memory syscalls: the exact pages a madvise dropped (from
 * pagemap before and after the call), and the files behind mmaps. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/procmap.h"
#include "core/tsc_patch.h"
#include "mem/pagemap.h"
#include "record/filecache.h"
#include "record/rtask.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

static bool destroys_content(uint64_t advice)
{
	return advice == MADV_DONTNEED || advice == MADV_DONTNEED_LOCKED ||
	       advice == MADV_REMOVE || advice == MADV_FREE;
}

static uint64_t page_end(uint64_t start, uint64_t len)
{
	uint64_t end = start + len;

	if (end < start)
		return 0;
	return (end + 4095) & ~4095ull;
}

/* PROCMAP_QUERY answers "the VMA covering or after this address", so a
 * madvise costs its own VMAs instead of a parse of the whole map (which
 * grew with every VMA the program fractured its memory into). */
static bool procmap_query_broken; /* ENOTTY once: parse maps from then on */

/* Appends the VMAs of [start, end) read with PROCMAP_QUERY. Returns the
 * count or -errno (-ENOTTY: no PROCMAP_QUERY). */
static long query_vmas(pid_t pid, uint64_t start, uint64_t end,
		       struct proc_vma **out)
{
	struct proc_vma *v = NULL, *grown;
	char path[64];
	size_t n = 0, cap = 0;
	uint64_t addr = start;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (addr < end) {
		struct mrr_procmap_query q = {0};
		struct proc_vma *e;

		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				close(fd);
				return -ENOMEM;
			}
			v = grown;
		}
		e = &v[n];
		memset(e, 0, sizeof(*e));
		q.size = sizeof(q);
		q.query_flags = MRR_PROCMAP_COVERING_OR_NEXT;
		q.query_addr = addr;
		q.vma_name_addr = (uint64_t)(uintptr_t)e->name;
		q.vma_name_size = sizeof(e->name);
		if (ioctl(fd, MRR_PROCMAP_QUERY, &q) < 0) {
			int err = errno;

			if (err == ENOENT)
				break; /* nothing at or after addr */
			free(v);
			close(fd);
			return -err;
		}
		if (q.vma_start >= end)
			break;
		e->start = q.vma_start;
		e->end = q.vma_end;
		e->offset = q.vma_offset;
		e->prot = (q.vma_flags & MRR_PROCMAP_VMA_READABLE ? PROT_READ
								  : 0) |
			  (q.vma_flags & MRR_PROCMAP_VMA_WRITABLE ? PROT_WRITE
								  : 0) |
			  (q.vma_flags & MRR_PROCMAP_VMA_EXECUTABLE ? PROT_EXEC
								    : 0);
		e->shared = q.vma_flags & MRR_PROCMAP_VMA_SHARED;
		if (!q.vma_name_size)
			e->name[0] = 0;
		e->anon = e->name[0] != '/'; /* as the maps parser says */
		n++;
		if (q.vma_end <= addr)
			break;
		addr = q.vma_end;
	}
	close(fd);
	*out = v;
	return (long)n;
}

/* The VMAs that overlap [start, end), sorted; with_flags also reads the
 * locked bit, which only smaps has (and so parses the whole map). Returns
 * the count and a malloc'd array (free it; NULL when 0) or -errno. */
long rec_vmas_in_range(pid_t pid, uint64_t start, uint64_t end, bool with_flags,
		       struct proc_vma **out)
{
	long n;

	static int forced_off = -1; /* benchmarks compare with the parser */

	*out = NULL;
	if (forced_off < 0)
		forced_off = getenv("MRR_NO_PROCMAP_QUERY") != NULL;
	if (!with_flags && !procmap_query_broken && !forced_off) {
		n = query_vmas(pid, start, end, out);
		if (n != -ENOTTY && n != -EINVAL)
			return n;
		procmap_query_broken = true;
	}
	return proc_read_vmas(pid, with_flags, out);
}

/* MADV_FREE only works on private anonymous memory. */
static bool all_private_anon(pid_t pid, uint64_t start, uint64_t end)
{
	struct proc_vma *v;
	long n = rec_vmas_in_range(pid, start, end, false, &v), i;
	uint64_t covered = start;

	if (n <= 0)
		return false;
	for (i = 0; i < n && covered < end; i++) {
		if (v[i].end <= covered || v[i].start >= end)
			continue;
		if (v[i].start > covered || v[i].shared || !v[i].anon)
			break;
		covered = v[i].end;
	}
	free(v);
	return covered >= end;
}

void rec_madvise_entry(struct recorder *rec, struct rtask *t)
{
	uint64_t start = t->args[0], end = page_end(start, t->args[1]);
	uint64_t advice = t->args[2];

	t->madv_forced = false;
	mrr_page_snapshot_free(t->snap);
	t->snap = NULL;
	if (!destroys_content(advice) || (start & 4095) || end <= start)
		return;
	if (advice == MADV_FREE && all_private_anon(t->t.tid, start, end)) {
		/* The kernel could drop these pages at any later moment,
		 * which no replay can predict; dropping them now is one of
		 * the outcomes MADV_FREE allows, and it replays exactly. */
		struct user_regs_struct r = t->entry_regs;

		r.rdx = MADV_DONTNEED;
		if (tracee_set_regs(&t->t, &r) == 0)
			t->madv_forced = true;
	}
	if (!t->pagemap && mrr_pagemap_open(t->t.tid, &t->pagemap) < 0) {
		t->pagemap = NULL;
		return;
	}
	if (!rec->pfn_readable)
		mrr_pagemap_disable_pfn(t->pagemap);
	if (mrr_pagemap_snapshot(t->pagemap, start, end, &t->snap) < 0)
		t->snap = NULL;
}

static uint32_t fill_for(const struct proc_vma *v, uint64_t advice)
{
	if (v->shared)
		return advice == MADV_REMOVE ? MRR_FILL_HOLE : MRR_FILL_KEEP;
	return v->anon ? MRR_FILL_ZERO : MRR_FILL_FILE;
}

void rec_madvise_exit(struct recorder *rec, struct rtask *t, struct capture *c)
{
	struct mrr_madvise_extra x = {0};
	struct mrr_page_snapshot *after = NULL;
	struct mrr_range *dropped = NULL;
	struct proc_vma *v = NULL;
	struct mrr_drop_range *out = NULL;
	struct mrr_locked_range *locked = NULL;
	uint64_t start = t->args[0], end = page_end(start, t->args[1]);
	long nd, nv = 0, i, j;
	size_t nout = 0, nlocked = 0;
	struct user_regs_struct r;

	/* the program's advice back in rdx, as the kernel would leave it
	 * (a later preemption point compares it) */
	if (t->madv_forced && tracee_get_regs(&t->t, &r) == 0) {
		r.rdx = t->args[2];
		if (tracee_set_regs(&t->t, &r) < 0)
			mrr_debug("pid %d: cannot restore rdx", t->t.tid);
	}

	if (!t->snap)
		return;
	if (mrr_pagemap_snapshot(t->pagemap, start, end, &after) < 0)
		goto out;
	nd = mrr_pagemap_dropped(t->snap, after, &dropped);
	if (nd < 0)
		goto out;
	nv = rec_vmas_in_range(t->t.tid, start, end, t->last_result < 0, &v);
	if (nv < 0)
		nv = 0;
	/* Split each dropped range at VMA boundaries: each part reads back
	 * as its VMA's kind of memory. Parts outside any VMA now (unmapped
	 * meanwhile) read as zeroes. */
	out = calloc((size_t)(nd + 1) * (size_t)(nv + 1), sizeof(*out));
	if (!out && nd)
		goto out;
	for (i = 0; i < nd; i++) {
		uint64_t s = dropped[i].start;

		for (j = 0; j < nv && s < dropped[i].end; j++) {
			uint64_t vs, ve;

			if (v[j].end <= s || v[j].start >= dropped[i].end)
				continue;
			vs = v[j].start > s ? v[j].start : s;
			ve = v[j].end < dropped[i].end ? v[j].end
						       : dropped[i].end;
			out[nout].start = vs;
			out[nout].end = ve;
			out[nout].fill = fill_for(&v[j], t->args[2]);
			nout++;
			s = ve;
		}
	}
	for (j = 0; j < nv; j++)
		if (v[j].locked && v[j].start < end && v[j].end > start)
			nlocked++;
	if (nlocked) {
		locked = calloc(nlocked, sizeof(*locked));
		nlocked = 0;
		for (j = 0; locked && j < nv; j++)
			if (v[j].locked && v[j].start < end &&
			    v[j].end > start) {
				locked[nlocked].start = v[j].start;
				locked[nlocked].end = v[j].end;
				nlocked++;
			}
	}
	x.precision = mrr_pagemap_pfn_readable(t->pagemap) ? MRR_DROP_PFN
							   : MRR_DROP_PRESENT;
	x.nranges = (uint32_t)nout;
	x.nlocked = (uint32_t)nlocked;
	x.flags = t->madv_forced ? MRR_MADV_FORCED_DROP : 0;
	capture_extra(c, &x, sizeof(x));
	if (nout)
		capture_extra(c, out, nout * sizeof(*out));
	if (nlocked)
		capture_extra(c, locked, nlocked * sizeof(*locked));
out:
	free(out);
	free(locked);
	free(v);
	free(dropped);
	mrr_page_snapshot_free(after);
	mrr_page_snapshot_free(t->snap);
	t->snap = NULL;
}

/* Stores the file at path, reusing an earlier copy of the same file. */
static int store_cached(struct recorder *rec, const char *path,
			const struct stat *st, unsigned flags,
			char name[MRR_STORED_NAME_MAX])
{
	struct stored_file *f;
	long long mtime = (long long)st->st_mtim.tv_sec * 1000000000 +
			  st->st_mtim.tv_nsec;
	size_t i;
	bool from_cache;
	int err;

	for (i = 0; i < rec->nstored; i++) {
		f = &rec->stored[i];
		if (f->dev == st->st_dev && f->ino == st->st_ino &&
		    f->size == (unsigned long long)st->st_size &&
		    f->mtime_ns == mtime) {
			/* A copy is asked for: the writer knows whether the
			 * earlier one was a link, and copies it then. */
			if ((flags & MRR_STORE_COPY) && !f->from_cache &&
			    mrr_trace_writer_store_file_flags(rec->w, path,
							      flags, name) == 0)
				memcpy(f->name, name, MRR_STORED_NAME_MAX);
			memcpy(name, f->name, MRR_STORED_NAME_MAX);
			return 0;
		}
	}
	/* The user's cache holds a copy of the file as it is now: linked in,
	 * with no reading or hashing. Set-ID files are always copied. */
	err = -ENOENT;
	if (rec->fc && !(st->st_mode & (S_ISUID | S_ISGID)))
		err = filecache_lookup(rec->fc, st, name);
	from_cache = err == 0;
	if (err) {
		struct stat after;

		err = mrr_trace_writer_store_file_flags(rec->w, path, flags,
							name);
		if (err)
			return err;
		if (rec->fc && stat(path, &after) == 0)
			filecache_add(rec->fc, st, &after, name);
	}
	if (rec->nstored == rec->stored_cap) {
		size_t ncap = rec->stored_cap ? rec->stored_cap * 2 : 32;
		f = realloc(rec->stored, ncap * sizeof(*f));
		if (!f)
			return 0;
		rec->stored = f;
		rec->stored_cap = ncap;
	}
	f = &rec->stored[rec->nstored++];
	f->sites = NULL;
	f->nsites = -1;
	f->from_cache = from_cache;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = (unsigned long long)st->st_size;
	f->mtime_ns = mtime;
	memcpy(f->name, name, MRR_STORED_NAME_MAX);
	return 0;
}

int rec_store_path(struct recorder *rec, const char *path,
		   char name[MRR_STORED_NAME_MAX])
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	return store_cached(rec, path, &st, 0, name);
}

int rec_store_fd_file(struct recorder *rec, struct rtask *t, int fd,
		      unsigned flags, char name[MRR_STORED_NAME_MAX],
		      uint64_t *size)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	*size = (uint64_t)st.st_size;
	return store_cached(rec, path, &st, flags, name);
}

/* True when the program could change the file it maps at t's mmap: a
 * shared writable mapping, or an fd opened for writing (from fdinfo). */
static bool program_may_write(const struct rtask *t)
{
	char path[64], line[128];
	unsigned long fl = O_RDWR;
	FILE *f;

	if ((t->args[3] & MAP_SHARED) && (t->args[2] & PROT_WRITE))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid,
		 (int)t->args[4]);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "flags: %lo", &fl) == 1)
			break;
	fclose(f);
	return (fl & O_ACCMODE) != O_RDONLY;
}

/* Whether a shared mapping of t's fd can never become writable, as the
 * kernel decides at mmap: the fd is read-only, or the file (a memfd) is
 * sealed against writes. */
static bool shared_never_writable(const struct rtask *t, int fd)
{
	char path[64], line[128];
	unsigned long fl = O_RDWR;
	int seals, own;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid, fd);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "flags: %lo", &fl) == 1)
				break;
		fclose(f);
	}
	if ((fl & O_ACCMODE) == O_RDONLY)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	own = open(path, O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return false;
	seals = fcntl(own, F_GET_SEALS);
	close(own);
	return seals > 0 && (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE));
}

/* The newest entry wins: a file stored again after it changed keeps its
 * inode. The ident is one more than the oldest entry's index, as
 * file_ident() gives it to mappings. */
const struct stored_file *rec_stored_for_fd(struct recorder *rec,
					    struct rtask *t, int fd,
					    uint64_t *size, uint32_t *ident)
{
	const struct stored_file *newest = NULL;
	char path[64];
	struct stat st;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	for (i = 0; i < rec->nstored; i++)
		if (rec->stored[i].dev == st.st_dev &&
		    rec->stored[i].ino == st.st_ino) {
			if (!newest)
				*ident = (uint32_t)i + 1;
			newest = &rec->stored[i];
		}
	if (newest)
		*size = (uint64_t)st.st_size;
	return newest;
}

/* An ftruncate or fallocate of a file some recorded process maps: the
 * replay must give its copy the same size, or a mapping that reaches past
 * the old end gets SIGBUS where the recording read data (and the other way
 * round after a shrink). The extra names the copy; offset is the new size
 * (ftruncate); fallocate is replayed with the event's own arguments. */
void rec_file_resize_exit(struct recorder *rec, struct rtask *t,
			  struct capture *c)
{
	struct mrr_file_write_extra x = {0};
	const struct stored_file *sf;
	uint64_t size;

	if (t->last_result != 0 || !rec->nstored)
		return;
	sf = rec_stored_for_fd(rec, t, (int)t->args[0], &size, &x.ident);
	if (!sf)
		return;
	memcpy(x.file, sf->name, sizeof(x.file));
	x.offset = size;
	capture_extra(c, &x, sizeof(x));
}

/* The file behind fd as a number shared by all its stored versions: one
 * more than the first stored entry with its device and inode. */
static uint32_t file_ident(struct recorder *rec, struct rtask *t, int fd)
{
	char path[64];
	struct stat st;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	if (stat(path, &st) < 0)
		return 0;
	for (i = 0; i < rec->nstored; i++)
		if (rec->stored[i].dev == st.st_dev &&
		    rec->stored[i].ino == st.st_ino)
			return (uint32_t)i + 1;
	return 0;
}

#define SECRETMEM_MAGIC 0x5345434d /* linux/magic.h */

/* A mapping of a memfd_secret file: nobody but the program can read its
 * pages (not mrr, not /proc/PID/mem), so they cannot be stored. The first
 * mapping of such a file holds zeros, as a fresh shared anonymous mapping
 * does, and the replay maps one (like /dev/zero's): from then on the
 * program's own writes fill both alike. A file mapped again may hold what
 * the program wrote through its earlier mapping, which mrr cannot give the
 * replay: refused. Returns 1 for a first mapping (no contents to store),
 * -1 when it stopped the recording, 0 for other files. */
static int secret_mapping(struct recorder *rec, struct rtask *t, int fd,
			  struct capture *c)
{
	char path[64];
	struct statfs sfs;
	struct stat st;
	unsigned long long *v;
	size_t i;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, fd);
	if (statfs(path, &sfs) < 0 || sfs.f_type != SECRETMEM_MAGIC ||
	    stat(path, &st) < 0)
		return 0;
	for (i = 0; i < rec->nsecret; i++)
		if (rec->secret_inos[i] == (unsigned long long)st.st_ino) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d mapped a memfd_secret file (fd %d) "
				 "that it had mapped before, at event %llu; "
				 "nobody but the program can read that memory, "
				 "so mrr cannot give the replay what it holds, "
				 "and the recording stops here",
				 t->t.tid, fd,
				 (unsigned long long)mrr_trace_writer_events(
					 rec->w));
			c->refused = true;
			return -1;
		}
	v = realloc(rec->secret_inos, (rec->nsecret + 1) * sizeof(*v));
	if (!v)
		return 1; /* forgetting it only weakens the check above */
	rec->secret_inos = v;
	v[rec->nsecret++] = (unsigned long long)st.st_ino;
	return 1;
}

void rec_mmap_exit(struct recorder *rec, struct rtask *t, struct capture *c)
{
	struct mrr_mmap_extra x = {0};
	uint64_t flags = t->args[3];
	int64_t result = t->last_result;
	bool copy;
	int err;

	if (result < 0 && result > -4096)
		return;
	if (flags & MAP_ANONYMOUS)
		return;
	/* Code may be linked (the writer links only files the user cannot
	 * write); data, and any file the program can write through this
	 * mapping or its fd, is copied, so the trace keeps what was mapped
	 * and the replay never reaches the original. */
	if (secret_mapping(rec, t, (int)t->args[4], c))
		return;
	copy = !(t->args[2] & PROT_EXEC) || program_may_write(t);
	err = rec_store_fd_file(rec, t, (int)t->args[4],
				copy ? MRR_STORE_COPY : 0, x.file, &x.size);
	if (err == -ENODEV) {
		/* /dev/zero and other non-regular files: no contents */
		return;
	}
	if (err == -ECANCELED)
		return; /* Ctrl-C or SIGTERM: the recording ends now */
	if (err == -ENOSPC || err == -EDQUOT || err == -EFBIG || err == -EIO ||
	    err < -999) {
		/* the trace cannot be written: it stays incomplete, as when
		 * an event write fails */
		if (!rec->write_err)
			rec->write_err = err < -999 ? -EIO : err;
		return;
	}
	if (err) {
		rec_stop(rec, 73,
			 "cannot store the file mapped by pid %d "
			 "(fd %d): %s",
			 t->t.tid, (int)t->args[4], strerror(-err));
		return;
	}
	if (flags & MAP_SHARED)
		x.shared = MRR_MMAP_SHARED |
			   (shared_never_writable(t, (int)t->args[4])
				    ? MRR_MMAP_NO_WRITE
				    : 0);
	x.ident = file_ident(rec, t, (int)t->args[4]);
	capture_extra(c, &x, sizeof(x));
	{
		/* the path it was mapped from, for dump -s and backtraces */
		char link[64], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/%d/fd/%d", t->t.tid,
			 (int)t->args[4]);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			capture_extra(c, target, (size_t)n + 1);
		}
	}
	if (t->args[2] & PROT_EXEC) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid,
			 (int)t->args[4]);
		rec_patch_tsc(rec, t, x.file, path, (uint64_t)result,
			      (uint64_t)result + t->args[1], t->args[5], c);
	}
}

void rec_patch_tsc(struct recorder *rec, struct rtask *t, const char *name,
		   const char *path, uint64_t start, uint64_t end,
		   uint64_t offset, struct capture *c)
{
	struct stored_file *f = NULL;
	size_t i;
	long j;

	if (!rec->tsc_rewrite) /* rdtsc traps: the code stays as it is */
		return;
	for (i = 0; i < rec->nstored; i++)
		if (strcmp(rec->stored[i].name, name) == 0) {
			f = &rec->stored[i];
			break;
		}
	if (!f)
		return;
	if (f->nsites < 0 && rec->fc)
		f->nsites = filecache_sites(rec->fc, name, &f->sites);
	if (f->nsites < 0) {
		/* the trace's copy holds exactly the content name names; the
		 * original may have changed since */
		char copy[PATH_MAX];

		if ((size_t)snprintf(copy, sizeof(copy), "%s/files/%s",
				     rec->trace_dir, name) < sizeof(copy))
			path = copy;
		f->nsites = tsc_find_sites(path, &f->sites);
		if (f->nsites < 0)
			f->nsites = 0;
		else if (rec->fc)
			filecache_put_sites(rec->fc, name, f->sites, f->nsites);
	}
	for (j = 0; j < f->nsites; j++) {
		uint64_t addr;

		if (f->sites[j].offset < offset ||
		    f->sites[j].offset - offset + f->sites[j].len > end - start)
			continue;
		addr = start + (f->sites[j].offset - offset);
		if (tracee_write_all(&t->t, addr,
				     tsc_patch_bytes(f->sites[j].len),
				     f->sites[j].len) == 0)
			capture_add(c, t, addr, f->sites[j].len);
	}
}

bool rec_host_fault(struct recorder *rec, struct rtask *t, const siginfo_t *si)
{
	uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
	unsigned long long lo, hi, off, ino;
	char path[PATH_MAX + 64], line[PATH_MAX + 128], *file = NULL;
	struct stat st;
	bool inside = false;
	FILE *f;

	if (si->si_signo != SIGBUS || si->si_code != BUS_ADRERR)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/maps", t->t.tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %llu %n", &lo, &hi,
			   &off, &ino, &pos) < 4 ||
		    addr < lo || addr >= hi)
			continue;
		if (ino == 0 || !pos || line[pos] != '/')
			break; /* anonymous memory: the fault recurs */
		line[strcspn(line, "\n")] = 0;
		file = line + pos;
		off += (addr & ~4095ull) - lo;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx",
			 t->t.tid, lo, hi);
		inside = (stat(file, &st) == 0 || stat(path, &st) == 0) &&
			 (unsigned long long)st.st_ino == ino &&
			 off < (unsigned long long)st.st_size;
		break;
	}
	fclose(f);
	if (!inside)
		return false; /* past the end of the file: it recurs */
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d got SIGBUS at 0x%llx, in the page at offset %llu of "
		 "%s, inside the file, at event %llu: the file system could "
		 "not give it that page (full, or an I/O error), which the "
		 "replay's copy of the file will not repeat, so the recording "
		 "stops here",
		 t->t.tid, (unsigned long long)addr, off, file,
		 (unsigned long long)mrr_trace_writer_events(rec->w));
	return true;
}
