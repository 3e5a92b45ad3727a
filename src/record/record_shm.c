/* What a SysV shared memory segment holds when a recorded process attaches
 * it, as the shmat event's memory writes: only its pages that hold data.
 * A segment of 1 GiB with one page written costs that page, not a read of
 * 1 GiB (which would also allocate every page of it) and 1 GiB of stream.
 *
 * The replay backs each segment id with a file that starts zero-filled
 * and sees every write the recorded processes make (replay_shm), so the
 * pages left out read as zeroes there, as they did here. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "core/exitcodes.h"
#include "core/log.h"
#include "record/rtask.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE	  4096ull
#define BLOCK	  (1ull << 20)
#define MAX_RUNS  48 /* of the capture's 64 writes */
#define SHM_LIMIT (1ull << 30)

struct run {
	uint64_t start, end; /* offsets in the segment, page-aligned */
};

struct runs {
	struct run *v;
	size_t n, cap;
};

static int runs_add(struct runs *r, uint64_t start, uint64_t end)
{
	struct run *g;

	if (r->n && r->v[r->n - 1].end == start) {
		r->v[r->n - 1].end = end;
		return 0;
	}
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		g = realloc(r->v, r->cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		r->v = g;
	}
	r->v[r->n].start = start;
	r->v[r->n].end = end;
	r->n++;
	return 0;
}

static bool page_zero(const uint8_t *p)
{
	static const uint8_t zero[PAGE];

	return memcmp(p, zero, PAGE) == 0;
}

/* Reads len bytes at segment offset off: from fd (the segment's file,
 * where holes read as zeroes and allocate nothing) or from the task. */
static int read_at(struct rtask *t, int fd, uint64_t addr, uint64_t off,
		   uint8_t *buf, size_t len)
{
	if (fd >= 0) {
		size_t done = 0;

		while (done < len) {
			ssize_t n = pread(fd, buf + done, len - done,
					  (off_t)(off + done));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			done += (size_t)n;
		}
		return 0;
	}
	return tracee_read_all(&t->t, addr + off, buf, len);
}

/* Adds the pages of [start, end) that hold a byte other than zero. */
static int scan(struct rtask *t, int fd, uint64_t addr, uint64_t start,
		uint64_t end, uint8_t *buf, struct runs *r)
{
	for (uint64_t off = start; off < end; off += BLOCK) {
		size_t len = end - off < BLOCK ? (size_t)(end - off) : BLOCK;
		int err = read_at(t, fd, addr, off, buf, len);

		if (err)
			return err;
		for (size_t p = 0; p < len; p += PAGE)
			if (!page_zero(buf + p) &&
			    runs_add(r, off + p, off + p + PAGE))
				return -ENOMEM;
	}
	return 0;
}

/* The data extents of fd below size (SEEK_DATA/SEEK_HOLE), scanned. */
static int scan_file(struct rtask *t, int fd, uint64_t addr, uint64_t size,
		     uint8_t *buf, struct runs *r)
{
	uint64_t off = 0;
	int err;

	while (off < size) {
		off_t d = lseek(fd, (off_t)off, SEEK_DATA), h;

		if (d < 0)
			return errno == ENXIO ? 0 : -errno;
		if ((uint64_t)d >= size)
			return 0;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0)
			return -errno;
		/* whole pages (shmem's extents are anyway) */
		d &= ~(off_t)(PAGE - 1);
		h = (off_t)(((uint64_t)h + PAGE - 1) & ~(PAGE - 1));
		if ((uint64_t)h > size)
			h = (off_t)size;
		err = scan(t, fd, addr, (uint64_t)d, (uint64_t)h, buf, r);
		if (err)
			return err;
		off = (uint64_t)h;
	}
	return 0;
}

static int by_gap_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Joins runs across their smallest gaps until at most MAX_RUNS are left:
 * the zero pages in between are then captured too. */
static int merge_runs(struct runs *r)
{
	uint64_t *gaps, min_gap, g;
	size_t i, j, ties;

	if (r->n <= MAX_RUNS)
		return 0;
	gaps = malloc((r->n - 1) * sizeof(*gaps));
	if (!gaps)
		return -ENOMEM;
	for (i = 1; i < r->n; i++)
		gaps[i - 1] = r->v[i].start - r->v[i - 1].end;
	qsort(gaps, r->n - 1, sizeof(*gaps), by_gap_desc);
	/* the MAX_RUNS - 1 largest gaps stay, ties in address order */
	min_gap = gaps[MAX_RUNS - 2];
	for (i = 0, ties = MAX_RUNS - 1; gaps[i] > min_gap; i++)
		ties--;
	free(gaps);
	for (i = 0, j = 0; i < r->n; i++) {
		if (j) {
			g = r->v[i].start - r->v[j - 1].end;
			if (g < min_gap || (g == min_gap && !ties)) {
				r->v[j - 1].end = r->v[i].end;
				continue;
			}
			if (g == min_gap)
				ties--;
		}
		r->v[j++] = r->v[i];
	}
	r->n = j;
	return 0;
}

int rec_capture_shm(struct recorder *rec, struct rtask *t, uint64_t addr,
		    uint64_t size, struct capture *c)
{
	struct runs r = {0};
	uint64_t total = 0;
	uint8_t *buf = NULL;
	char path[96];
	int fd, err;

	(void)rec;
	if (!size)
		return 0;
	/* The segment's own file (root only: map_files needs
	 * CAP_SYS_ADMIN): its holes are skipped unread. Else the task's
	 * memory, every page read. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", t->t.tid,
		 (unsigned long long)addr, (unsigned long long)(addr + size));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf = malloc(BLOCK);
	err = buf ? 0 : -ENOMEM;
	if (!err && fd >= 0 && scan_file(t, fd, addr, size, buf, &r)) {
		close(fd);
		fd = -1;
		r.n = 0;
	}
	if (!err && fd < 0)
		err = scan(t, -1, addr, 0, size, buf, &r);
	if (!err)
		err = merge_runs(&r);
	for (size_t i = 0; !err && i < r.n; i++)
		total += r.v[i].end - r.v[i].start;
	if (!err && total > SHM_LIMIT)
		err = -E2BIG;
	for (size_t i = 0; !err && i < r.n; i++) {
		uint64_t len = r.v[i].end - r.v[i].start;
		uint8_t *data = malloc(len);

		err = data ? read_at(t, fd, addr, r.v[i].start, data, len)
			   : -ENOMEM;
		if (!err)
			err = capture_put(c, addr + r.v[i].start, data, len);
		free(data);
	}
	mrr_debug("pid %d: shmat of %llu bytes at 0x%llx: %zu runs, %llu "
		  "bytes with data (%s)",
		  t->t.tid, (unsigned long long)size, (unsigned long long)addr,
		  r.n, (unsigned long long)total,
		  fd >= 0 ? "its file" : "its memory");
	if (fd >= 0)
		close(fd);
	free(buf);
	free(r.v);
	return err;
}
