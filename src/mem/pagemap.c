/* Page residency from /proc/PID/pagemap; see pagemap.h. */
#define _GNU_SOURCE
#include "mem/pagemap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>

/* PAGEMAP_SCAN arrived in Linux 6.7; Debian 12 ships 6.1 headers. Layout
 * and values from include/uapi/linux/fs.h. */
#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start;
	uint64_t end;
	uint64_t categories;
};
struct pm_scan_arg {
	uint64_t size;
	uint64_t flags;
	uint64_t start;
	uint64_t end;
	uint64_t walk_end;
	uint64_t vec;
	uint64_t vec_len;
	uint64_t max_pages;
	uint64_t category_inverted;
	uint64_t category_mask;
	uint64_t category_anyof_mask;
	uint64_t return_mask;
};
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif
#ifndef PAGE_IS_PRESENT
#define PAGE_IS_PRESENT (1 << 3)
#endif
#ifndef PAGE_IS_SWAPPED
#define PAGE_IS_SWAPPED (1 << 4)
#endif

/* x86-64 only: base pages are always 4 KiB. */
#define PAGE_SHIFT 12
#define PAGE_SZ	   (1ULL << PAGE_SHIFT)

#define PM_PRESENT    (1ULL << 63)
#define PM_SWAPPED    (1ULL << 62)
#define PM_FRAME_MASK ((1ULL << 55) - 1)
#define PM_RESIDENT   (PM_PRESENT | PM_SWAPPED)

#define READ_BATCH 8192 /* entries per pread: 64 KiB */
#define SCAN_VEC   256	/* regions per PAGEMAP_SCAN call */

struct mrr_pagemap {
	int fd;
	bool pfn_readable;
	bool has_scan;
	uint64_t *buf;		 /* READ_BATCH entries */
	struct page_region *vec; /* SCAN_VEC regions */
};

/* A run of contiguous resident pages; its entries are
 * entries[first .. first + npages). */
struct run {
	uint64_t start;
	uint64_t npages;
	size_t first;
};

struct mrr_page_snapshot {
	uint64_t start;
	uint64_t end;
	bool has_pfn;
	struct run *runs;
	size_t nruns, runs_cap;
	uint64_t *entries; /* masked to PM_RESIDENT | PM_FRAME_MASK */
	size_t nentries, entries_cap;
};

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Adds one resident page; pages arrive in increasing address order. */
static int snap_append(struct mrr_page_snapshot *s, uint64_t addr,
		       uint64_t entry)
{
	struct run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;
	int err;

	err = grow((void **)&s->entries, &s->entries_cap, s->nentries + 1,
		   sizeof(*s->entries));
	if (err)
		return err;
	if (!last || last->start + (last->npages << PAGE_SHIFT) != addr) {
		err = grow((void **)&s->runs, &s->runs_cap, s->nruns + 1,
			   sizeof(*s->runs));
		if (err)
			return err;
		last = &s->runs[s->nruns++];
		last->start = addr;
		last->npages = 0;
		last->first = s->nentries;
	}
	s->entries[s->nentries++] = entry;
	last->npages++;
	return 0;
}

static void snap_reset(struct mrr_page_snapshot *s)
{
	s->nruns = 0;
	s->nentries = 0;
}

static uint64_t mask_entry(const struct mrr_page_snapshot *s, uint64_t e)
{
	return e & (PM_RESIDENT | (s->has_pfn ? PM_FRAME_MASK : 0));
}

/* Reads the entries of [start, end) and appends the resident ones. A short
 * read means the range goes past the task's address space, where nothing
 * is mapped. */
static int read_entries(struct mrr_pagemap *pm, struct mrr_page_snapshot *s,
			uint64_t start, uint64_t end)
{
	uint64_t addr = start;

	while (addr < end) {
		uint64_t want = (end - addr) >> PAGE_SHIFT;
		ssize_t got;
		size_t n, i;
		int err;

		if (want > READ_BATCH)
			want = READ_BATCH;
		got = pread(pm->fd, pm->buf, want * sizeof(uint64_t),
			    (off_t)((addr >> PAGE_SHIFT) * sizeof(uint64_t)));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = (size_t)got / sizeof(uint64_t);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			uint64_t e = pm->buf[i];

			if (!(e & PM_RESIDENT))
				continue;
			err = snap_append(s, addr + (i << PAGE_SHIFT),
					  mask_entry(s, e));
			if (err)
				return err;
		}
		addr += (uint64_t)n << PAGE_SHIFT;
	}
	return 0;
}

/* Without PFNs the scan's categories already say all a pagemap read
 * would, so the entries are made up from them instead of read. */
static int add_scanned(struct mrr_pagemap *pm, struct mrr_page_snapshot *s,
		       const struct page_region *r)
{
	uint64_t entry = 0, addr;
	int err;

	if (s->has_pfn)
		return read_entries(pm, s, r->start, r->end);
	if (r->categories & PAGE_IS_PRESENT)
		entry = PM_PRESENT;
	else if (r->categories & PAGE_IS_SWAPPED)
		entry = PM_SWAPPED;
	else
		return 0;
	for (addr = r->start; addr < r->end; addr += PAGE_SZ) {
		err = snap_append(s, addr, entry);
		if (err)
			return err;
	}
	return 0;
}

static int scan_once(struct mrr_pagemap *pm, uint64_t start, uint64_t end,
		     size_t vec_len, struct pm_scan_arg *arg)
{
	memset(arg, 0, sizeof(*arg));
	arg->size = sizeof(*arg);
	arg->start = start;
	arg->end = end;
	arg->vec = (uint64_t)(uintptr_t)pm->vec;
	arg->vec_len = vec_len;
	arg->category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED;
	arg->return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED;
	return ioctl(pm->fd, PAGEMAP_SCAN, arg);
}

/* Returns 0, -ENOTTY / -EINVAL / -EFAULT when the scan cannot serve this
 * range (the caller falls back to plain reads), or another -errno. */
static int snapshot_scan(struct mrr_pagemap *pm, struct mrr_page_snapshot *s)
{
	uint64_t addr = s->start;

	while (addr < s->end) {
		struct pm_scan_arg arg;
		long n, i;
		int err;

		n = scan_once(pm, addr, s->end, SCAN_VEC, &arg);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* Adjacent regions in one reply differ only in category;
		 * without PFNs they are cheap, with PFNs they are read one
		 * by one, in at most READ_BATCH entries each. */
		for (i = 0; i < n; i++) {
			err = add_scanned(pm, s, &pm->vec[i]);
			if (err)
				return err;
		}
		if (arg.walk_end <= addr)
			return -EIO; /* the kernel made no progress */
		addr = arg.walk_end;
	}
	return 0;
}

static bool probe_pfn(void)
{
	volatile uint64_t local_touched = 1;
	uint64_t addr = (uint64_t)(uintptr_t)&local_touched, e = 0;
	bool readable = false;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* show_pfn depends on the opener's credentials, not on the target, so
	 * our own page tells about every task we open. */
	if (pread(fd, &e, sizeof(e), (off_t)((addr >> PAGE_SHIFT) * 8)) ==
	    sizeof(e))
		readable = (e & PM_PRESENT) && (e & PM_FRAME_MASK);
	close(fd);
	return readable;
}

int mrr_pagemap_open(pid_t pid, struct mrr_pagemap **out)
{
	struct mrr_pagemap *pm;
	struct pm_scan_arg arg;
	char path[64];
	int err;

	*out = NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->buf = malloc(READ_BATCH * sizeof(*pm->buf));
	pm->vec = malloc(SCAN_VEC * sizeof(*pm->vec));
	if (!pm->buf || !pm->vec) {
		err = -ENOMEM;
		goto out_free;
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	pm->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pm->fd < 0) {
		err = -errno;
		goto out_free;
	}
	pm->pfn_readable = probe_pfn();
	/* The first page is below mmap_min_addr, so this scans nothing; old
	 * kernels answer ENOTTY. */
	pm->has_scan = scan_once(pm, 0, PAGE_SZ, SCAN_VEC, &arg) >= 0;
	*out = pm;
	return 0;

out_free:
	free(pm->vec);
	free(pm->buf);
	free(pm);
	return err;
}

void mrr_pagemap_close(struct mrr_pagemap *pm)
{
	if (!pm)
		return;
	close(pm->fd);
	free(pm->vec);
	free(pm->buf);
	free(pm);
}

bool mrr_pagemap_pfn_readable(const struct mrr_pagemap *pm)
{
	return pm->pfn_readable;
}

bool mrr_pagemap_has_scan(const struct mrr_pagemap *pm)
{
	return pm->has_scan;
}

void mrr_pagemap_disable_scan(struct mrr_pagemap *pm)
{
	pm->has_scan = false;
}

void mrr_pagemap_disable_pfn(struct mrr_pagemap *pm)
{
	pm->pfn_readable = false;
}

int mrr_pagemap_snapshot(struct mrr_pagemap *pm, uint64_t start, uint64_t end,
			 struct mrr_page_snapshot **out)
{
	struct mrr_page_snapshot *s;
	int err = 0;

	*out = NULL;
	if (start & (PAGE_SZ - 1) || end < start)
		return -EINVAL;
	if (end > UINT64_MAX - (PAGE_SZ - 1))
		return -EINVAL;
	end = (end + PAGE_SZ - 1) & ~(PAGE_SZ - 1);
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->start = start;
	s->end = end;
	s->has_pfn = pm->pfn_readable;

	if (pm->has_scan && start < end) {
		err = snapshot_scan(pm, s);
		if (err == -ENOTTY || err == -EINVAL)
			pm->has_scan = false;
		if (err == -ENOTTY || err == -EINVAL || err == -EFAULT) {
			/* EFAULT: the range leaves the user address space,
			 * which plain reads treat as unmapped. */
			snap_reset(s);
			err = read_entries(pm, s, start, end);
		}
	} else {
		err = read_entries(pm, s, start, end);
	}
	if (err) {
		mrr_page_snapshot_free(s);
		return err;
	}
	*out = s;
	return 0;
}

int mrr_page_snapshot_from_entries(uint64_t start, const uint64_t *entries,
				   size_t n, struct mrr_page_snapshot **out)
{
	struct mrr_page_snapshot *s;
	size_t i;
	int err;

	*out = NULL;
	if (start & (PAGE_SZ - 1) || n > (UINT64_MAX - start) >> PAGE_SHIFT)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->start = start;
	s->end = start + ((uint64_t)n << PAGE_SHIFT);
	s->has_pfn = true;
	for (i = 0; i < n; i++) {
		if (!(entries[i] & PM_RESIDENT))
			continue;
		err = snap_append(s, start + ((uint64_t)i << PAGE_SHIFT),
				  mask_entry(s, entries[i]));
		if (err) {
			mrr_page_snapshot_free(s);
			return err;
		}
	}
	*out = s;
	return 0;
}

void mrr_page_snapshot_free(struct mrr_page_snapshot *s)
{
	if (!s)
		return;
	free(s->runs);
	free(s->entries);
	free(s);
}

size_t mrr_page_snapshot_resident(const struct mrr_page_snapshot *s)
{
	return s->nentries;
}

bool mrr_page_snapshot_has_pfn(const struct mrr_page_snapshot *s)
{
	return s->has_pfn;
}

/* Index of the first run that ends after addr (nruns when none). */
static size_t find_run(const struct mrr_page_snapshot *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct run *r = &s->runs[mid];

		if (r->start + (r->npages << PAGE_SHIFT) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry of the page at addr (0 when not resident). */
static uint64_t entry_at(const struct mrr_page_snapshot *s, uint64_t addr)
{
	size_t i = find_run(s, addr);
	const struct run *r;

	if (i == s->nruns)
		return 0;
	r = &s->runs[i];
	if (addr < r->start)
		return 0;
	return s->entries[r->first + ((addr - r->start) >> PAGE_SHIFT)];
}

/* The first resident page at or after addr (UINT64_MAX when none). */
static uint64_t next_resident(const struct mrr_page_snapshot *s, uint64_t addr)
{
	size_t i = find_run(s, addr);

	if (i == s->nruns)
		return UINT64_MAX;
	return s->runs[i].start > addr ? s->runs[i].start : addr;
}

static bool page_dropped(uint64_t before, uint64_t after, bool frames)
{
	uint64_t fmask = frames ? PM_FRAME_MASK : 0;

	if (!(after & PM_RESIDENT))
		return true;
	if ((before & PM_RESIDENT) != (after & PM_RESIDENT))
		return false; /* reclaimed or swapped in: same content */
	return (before & fmask) != (after & fmask);
}

struct range_list {
	struct mrr_range *v;
	size_t n, cap;
};

static int push_range(struct range_list *l, uint64_t start, uint64_t end)
{
	int err;

	err = grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	if (err)
		return err;
	l->v[l->n].start = start;
	l->v[l->n].end = end;
	l->n++;
	return 0;
}

long mrr_pagemap_dropped(const struct mrr_page_snapshot *before,
			 const struct mrr_page_snapshot *after,
			 struct mrr_range **ranges)
{
	bool frames = before->has_pfn && after->has_pfn;
	struct range_list out = {0};
	uint64_t cur_start = 0, cur_end = 0; /* open range when cur_end */
	size_t ri;
	int err;

	*ranges = NULL;
	if (before->start != after->start || before->end != after->end)
		return -EINVAL;

	for (ri = 0; ri < before->nruns; ri++) {
		const struct run *r = &before->runs[ri];
		uint64_t i;

		for (i = 0; i < r->npages; i++) {
			uint64_t addr = r->start + (i << PAGE_SHIFT);
			uint64_t eb = before->entries[r->first + i];

			if (!page_dropped(eb, entry_at(after, addr), frames)) {
				/* A kept page separates dropped ranges. */
				if (cur_end) {
					err = push_range(&out, cur_start,
							 cur_end);
					if (err)
						goto out_free;
					cur_end = 0;
				}
				continue;
			}
			/* Every page resident before between cur_end and addr
			 * was kept and closed the range, so only pages that
			 * showed up after can still be in the way. */
			if (cur_end &&
			    (cur_end == addr ||
			     next_resident(after, cur_end) >= addr)) {
				cur_end = addr + PAGE_SZ;
				continue;
			}
			if (cur_end) {
				err = push_range(&out, cur_start, cur_end);
				if (err)
					goto out_free;
			}
			cur_start = addr;
			cur_end = addr + PAGE_SZ;
		}
	}
	if (cur_end) {
		err = push_range(&out, cur_start, cur_end);
		if (err)
			goto out_free;
	}
	*ranges = out.v;
	return (long)out.n;

out_free:
	free(out.v);
	return err;
}
