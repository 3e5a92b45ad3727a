/* Return addresses on a task's stack (retaddr.h). */
#include "record/retaddr.h"

#include "core/proc.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Executable ranges of program code (mrr's page and library left out),
 * sorted by start, adjacent ones joined: all of them, however many (stress-ng
 * far-branch maps ~384 executable pages, each its own mapping, below its
 * binary; keeping only the first 64 lost every return address into the
 * program's own code). */
struct range {
	uint64_t lo, hi;
};
struct ranges {
	struct range *r;
	size_t n;
};

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Returns 0, or -1 when the mappings cannot be read (r empty). */
static int read_ranges(pid_t tid, struct ranges *r)
{
	struct proc_vma *v = NULL;
	long n = proc_read_vmas(tid, false, &v);
	size_t k = 0;

	r->r = NULL;
	r->n = 0;
	if (n <= 0 || !(r->r = malloc((size_t)n * sizeof(*r->r)))) {
		free(v);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		if (!(v[i].prot & PROT_EXEC) ||
		    strstr(v[i].name, "libmrr_preload") ||
		    (v[i].start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		     v[i].end > MRR_PAGE_ADDR))
			continue;
		r->r[k].lo = v[i].start;
		r->r[k].hi = v[i].end;
		k++;
	}
	free(v);
	/* /proc lists mappings in address order; sorted here all the same,
	 * since the search relies on it */
	qsort(r->r, k, sizeof(*r->r), by_start);
	for (size_t i = 0; i < k; i++) {
		if (r->n && r->r[r->n - 1].hi == r->r[i].lo)
			r->r[r->n - 1].hi = r->r[i].hi; /* one range of code */
		else
			r->r[r->n++] = r->r[i];
	}
	return 0;
}

/* The range that holds addr, or NULL. */
static const struct range *range_of(const struct ranges *r, uint64_t addr)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) { /* the first range that ends above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (r->r[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->n && r->r[lo].lo <= addr)
		return &r->r[lo];
	return NULL;
}

/* Whether the bytes b[0..7], the 8 bytes before a candidate, end with a
 * call instruction: e8 rel32, or ff /2 with a register, a register
 * indirect, a disp8, a disp32, a sib or a rip-relative operand. */
static bool after_call(const uint8_t b[8])
{
	uint8_t m;

	if (b[3] == 0xe8)
		return true; /* call rel32 */
	if (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)
		return true; /* call *%reg */
	if (b[6] == 0xff && (b[7] & 0xf8) == 0x10 && b[7] != 0x14 &&
	    b[7] != 0x15)
		return true; /* call *(%reg) */
	m = b[6];
	if (b[5] == 0xff && (m & 0xf8) == 0x50 && m != 0x54)
		return true; /* call *disp8(%reg) */
	if (b[5] == 0xff && b[6] == 0x14)
		return true; /* call *(sib) */
	if (b[4] == 0xff && b[5] == 0x54)
		return true; /* call *disp8(sib) */
	m = b[3];
	if (b[2] == 0xff && (m == 0x15 || ((m & 0xf8) == 0x90 && m != 0x94)))
		return true; /* call *disp32(%rip) or *disp32(%reg) */
	if (b[1] == 0xff && b[2] == 0x94)
		return true; /* call *disp32(sib) */
	return false;
}

int rec_return_addresses(struct rtask *t, uint64_t rsp, const uint64_t *skip,
			 int nskip, uint64_t *out, int max)
{
	uint64_t w[RETADDR_SCAN_BYTES / 8];
	struct ranges r;
	ssize_t got;
	int n = 0;

	if (max <= 0)
		return 0;
	got = tracee_read(&t->t, rsp, w, sizeof(w));
	if (got < 8 || read_ranges(t->t.tid, &r) < 0)
		return 0;
	for (size_t i = 0; i < (size_t)got / 8 && n < max; i++) {
		uint64_t a = w[i];
		uint8_t code[8];
		bool seen = false;
		const struct range *k = range_of(&r, a);

		if (!k || a - 8 < k->lo)
			continue;
		for (int j = 0; j < n && !seen; j++)
			seen = out[j] == a;
		for (int j = 0; j < nskip && !seen; j++)
			seen = skip[j] == a;
		if (seen ||
		    tracee_read_all(&t->t, a - 8, code, sizeof(code)) < 0 ||
		    !after_call(code))
			continue;
		out[n++] = a;
	}
	free(r.r);
	return n;
}
