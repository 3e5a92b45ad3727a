/* The buffered mprotects of a syscall buffer flush, checked against the
 * kernel (rtask.h: rec_sbuf_check_mprotects). The records come from memory
 * the program can write, so a record is believed only when the memory map
 * agrees with it: for every page, the last successful mprotect of the
 * flush that covers it must have left the read and write bits the map
 * shows now. Between two flushes of a task nothing else changes
 * protections: every other call that could is traced, and a traced call
 * flushes first; tasks that share the map run one at a time.
 *
 * A failed call (EINVAL, EACCES, ENOMEM after a hole) may have changed part
 * of its range: the pages it covers are not checked against any earlier
 * record. The replay makes each call again and compares its result. */
#include "core/proc.h"
#include "core/tracee.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "core/sbuf_records.h"

#define PAGE_UP(x) (((x) + 4095) & ~4095ull)

struct ival {
	uint64_t lo, hi;
};

/* Sorted, disjoint ranges already decided by a later record. */
struct cover {
	struct ival *v;
	size_t n, cap;
};

static int cover_add(struct cover *c, uint64_t lo, uint64_t hi)
{
	size_t i = 0, j;

	while (i < c->n && c->v[i].hi < lo)
		i++;
	j = i;
	while (j < c->n && c->v[j].lo <= hi) {
		if (c->v[j].lo < lo)
			lo = c->v[j].lo;
		if (c->v[j].hi > hi)
			hi = c->v[j].hi;
		j++;
	}
	if (j == i) { /* no overlap: insert at i */
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 16;
			struct ival *v = realloc(c->v, cap * sizeof(*v));

			if (!v)
				return -1;
			c->v = v;
			c->cap = cap;
		}
		memmove(c->v + i + 1, c->v + i, (c->n - i) * sizeof(*c->v));
		c->n++;
	} else if (j > i + 1) { /* merged several into v[i] */
		memmove(c->v + i + 1, c->v + j, (c->n - j) * sizeof(*c->v));
		c->n -= j - i - 1;
	}
	c->v[i].lo = lo;
	c->v[i].hi = hi;
	return 0;
}

/* Whether every page of [lo, hi) is mapped with prot's read and write
 * bits. */
static bool map_says(pid_t tid, uint64_t lo, uint64_t hi, unsigned prot)
{
	struct proc_vma *v;
	long n = rec_vmas_in_range(tid, lo, hi, false, &v), i;
	uint64_t at = lo;
	const unsigned rw = PROT_READ | PROT_WRITE;

	if (n <= 0)
		return false;
	for (i = 0; i < n && at < hi; i++) {
		if (v[i].end <= at)
			continue;
		if (v[i].start > at || (v[i].prot & rw) != (prot & rw))
			break;
		at = v[i].end;
	}
	free(v);
	return at >= hi;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && a + alen > b;
}

const char *rec_sbuf_check_mprotects(pid_t tid, uint64_t sbuf,
				     const uint8_t *recs, size_t len, char *why,
				     size_t whylen)
{
	const struct mrr_syscallbuf_rec **list = NULL, *r;
	const uint8_t *data;
	struct cover c = {0};
	size_t off = 0, n = 0, cap = 0;
	const char *bad = NULL;

	while (sbuf_next(recs, len, &off, &r, &data, NULL, 0) > 0) {
		if (r->nr != SYS_mprotect)
			continue;
		if (overlaps(r->args[0], r->args[1], MRR_PAGE_ADDR,
			     MRR_PAGE_SIZE) ||
		    overlaps(r->args[0], r->args[1], sbuf,
			     MRR_SYSCALLBUF_SIZE) ||
		    (r->result == 0 &&
		     (r->args[2] & ~(uint64_t)(PROT_READ | PROT_WRITE)))) {
			snprintf(why, whylen,
				 "an mprotect(0x%llx, 0x%llx, 0x%llx) the "
				 "library never buffers",
				 (unsigned long long)r->args[0],
				 (unsigned long long)r->args[1],
				 (unsigned long long)r->args[2]);
			free(list);
			return why;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			const struct mrr_syscallbuf_rec **l =
				realloc(list, ncap * sizeof(*l));

			if (!l) {
				free(list);
				return "out of memory";
			}
			list = l;
			cap = ncap;
		}
		list[n++] = r;
	}
	/* latest first: each page is checked against its last call only */
	while (n-- > 0 && !bad) {
		uint64_t lo = list[n]->args[0];
		uint64_t hi = lo + PAGE_UP(list[n]->args[1]);
		uint64_t at = lo;
		size_t i;

		if (hi <= lo)
			continue; /* length 0, or a failure (wraps) */
		for (i = 0; list[n]->result == 0 && i <= c.n && !bad; i++) {
			uint64_t end = i < c.n ? c.v[i].lo : hi;

			if (end > hi)
				end = hi;
			if (end > at && !map_says(tid, at, end,
						  (unsigned)list[n]->args[2])) {
				snprintf(why, whylen,
					 "mprotect(0x%llx, 0x%llx, 0x%llx) = 0 "
					 "is not what the memory map shows",
					 (unsigned long long)list[n]->args[0],
					 (unsigned long long)list[n]->args[1],
					 (unsigned long long)list[n]->args[2]);
				bad = why;
			}
			if (i < c.n && c.v[i].hi > at)
				at = c.v[i].hi;
			if (at >= hi)
				break;
		}
		if (cover_add(&c, lo, hi) < 0)
			bad = "out of memory";
	}
	free(c.v);
	free(list);
	return bad;
}
