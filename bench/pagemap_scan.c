/* Cost of finding the pages a madvise(MADV_DONTNEED) dropped: snapshot
 * before, snapshot after, diff, on this process's own memory. Compares the
 * PAGEMAP_SCAN ioctl with plain /proc/self/pagemap reads, each with and
 * without PFNs, against the madvise itself.
 *
 * Usage: bench_pagemap_scan [runs]   (default 9; the median is printed)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mem/pagemap.h"

#define PAGE 4096ULL

struct scenario {
	const char *name;
	uint64_t len;
	uint64_t touched; /* 0: every page */
};

enum method { NATIVE, SCAN_PFN, SCAN_NOPFN, PLAIN_PFN, PLAIN_NOPFN, NMETHODS };

static const char *const method_names[NMETHODS] = {
	"madvise", "scan+pfn", "scan", "plain+pfn", "plain",
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void touch(char *p, const struct scenario *sc)
{
	uint64_t i, step;

	if (!sc->touched) {
		for (i = 0; i < sc->len; i += PAGE)
			p[i] = 1;
		return;
	}
	/* Spread over the range: first page, last page, between. */
	step = sc->touched > 1 ? (sc->len / PAGE - 1) / (sc->touched - 1) : 0;
	for (i = 0; i < sc->touched; i++)
		p[i * step * PAGE] = 1;
}

/* One measured madvise; returns microseconds spent outside the madvise
 * itself (or in it, for NATIVE), or a negative value on error. */
static double run_once(struct mrr_pagemap *pm, char *p,
		       const struct scenario *sc, enum method m,
		       size_t *nranges)
{
	struct mrr_page_snapshot *before = NULL, *after = NULL;
	uint64_t start = (uint64_t)(uintptr_t)p;
	struct mrr_range *ranges = NULL;
	double t0, t1, t2, t3;
	long n;

	touch(p, sc);
	t0 = now_us();
	if (m != NATIVE &&
	    mrr_pagemap_snapshot(pm, start, start + sc->len, &before))
		return -1;
	t1 = now_us();
	if (madvise(p, sc->len, MADV_DONTNEED)) {
		fprintf(stderr, "madvise failed: %s\n", strerror(errno));
		return -1;
	}
	t2 = now_us();
	if (m == NATIVE)
		return t2 - t1;
	if (mrr_pagemap_snapshot(pm, start, start + sc->len, &after)) {
		mrr_page_snapshot_free(before);
		return -1;
	}
	n = mrr_pagemap_dropped(before, after, &ranges);
	t3 = now_us();
	mrr_page_snapshot_free(before);
	mrr_page_snapshot_free(after);
	free(ranges);
	if (n < 0)
		return -1;
	*nranges = (size_t)n;
	return (t1 - t0) + (t3 - t2);
}

int main(int argc, char **argv)
{
	static const struct scenario scenarios[] = {
		{"1 MiB, 3 touched", 1ULL << 20, 3},
		{"64 MiB, 3 touched", 64ULL << 20, 3},
		{"1 GiB, 3 touched", 1ULL << 30, 3},
		{"64 MiB, all touched", 64ULL << 20, 0},
	};
	int runs = argc > 1 ? atoi(argv[1]) : 9;
	struct mrr_pagemap *pm = NULL;
	double *t;
	size_t s;
	int err;

	if (runs < 1)
		runs = 1;
	t = calloc((size_t)runs, sizeof(*t));
	if (!t)
		return 1;
	err = mrr_pagemap_open(getpid(), &pm);
	if (err) {
		fprintf(stderr, "cannot open own pagemap: %s\n",
			strerror(-err));
		return 1;
	}
	printf("PAGEMAP_SCAN: %s; PFNs readable: %s; median of %d runs\n",
	       mrr_pagemap_has_scan(pm) ? "yes" : "no",
	       mrr_pagemap_pfn_readable(pm) ? "yes" : "no", runs);
	printf("microseconds per madvise(MADV_DONTNEED): the call itself, "
	       "then snapshot before + after + diff\n\n");
	printf("%-22s", "range");
	for (int m = 0; m < NMETHODS; m++)
		printf(" %10s", method_names[m]);
	printf(" %7s\n", "ranges");

	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		const struct scenario *sc = &scenarios[s];
		size_t nranges = 0;
		char *p;

		p = mmap(NULL, sc->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "mmap failed: %s\n", strerror(errno));
			return 1;
		}
		/* Base pages only, so "3 touched" means 3 resident pages. */
		(void)madvise(p, sc->len, MADV_NOHUGEPAGE);
		printf("%-22s", sc->name);
		for (int m = 0; m < NMETHODS; m++) {
			struct mrr_pagemap *mpm = NULL;
			bool skip = false;

			if (m != NATIVE) {
				if (mrr_pagemap_open(getpid(), &mpm))
					return 1;
				if (m == SCAN_PFN || m == SCAN_NOPFN)
					skip = !mrr_pagemap_has_scan(mpm);
				else
					mrr_pagemap_disable_scan(mpm);
				if (m == SCAN_NOPFN || m == PLAIN_NOPFN)
					mrr_pagemap_disable_pfn(mpm);
			}
			for (int r = 0; r < runs && !skip; r++) {
				t[r] = run_once(mpm, p, sc, (enum method)m,
						&nranges);
				if (t[r] < 0) {
					fprintf(stderr, "run failed\n");
					return 1;
				}
			}
			mrr_pagemap_close(mpm);
			if (skip) {
				printf(" %10s", "n/a");
				continue;
			}
			qsort(t, (size_t)runs, sizeof(*t), cmp_double);
			printf(" %10.1f", t[runs / 2]);
		}
		printf(" %7zu\n", nranges);
		munmap(p, sc->len);
	}
	mrr_pagemap_close(pm);
	free(t);
	return 0;
}
