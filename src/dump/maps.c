/* The memory map of each recorded address space, rebuilt from the events
 * that change it. It is the recorder's view replayed on paper: the kernel's
 * choices (addresses, merged or split VMAs) are taken from the results.
 *
 * A map is a persistent treap keyed by start address: nodes are shared
 * between versions and copied only on the path a change touches, so that a
 * fork's copy of the map and the before/after snapshots of every event cost
 * O(1), and each change O(log n) plus the mappings it touches. Priorities
 * are random, so no trace can choose a deep tree. */
#include "dump/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct dnode {
	struct dmap m;
	struct dnode *l, *r;
	uint32_t prio;
	unsigned refs;
};

static uint64_t prio_state;

static uint32_t next_prio(void)
{
	if (!prio_state)
		prio_state = ((uint64_t)time(NULL) << 20) ^
			     (uint64_t)(uintptr_t)&prio_state ^
			     0x9e3779b97f4a7c15ull;
	prio_state ^= prio_state << 13;
	prio_state ^= prio_state >> 7;
	prio_state ^= prio_state << 17;
	return (uint32_t)(prio_state >> 16);
}

/* Out of memory inside a tree operation cannot be undone half way: the
 * dump stops, as for any other allocation failure of its own. */
static struct dnode *node_alloc(void)
{
	struct dnode *n = malloc(sizeof(*n));

	if (!n) {
		fputs("mrr: out of memory\n", stderr);
		exit(71);
	}
	return n;
}

static struct dnode *node_new(const struct dmap *m)
{
	struct dnode *n = node_alloc();

	n->m = *m;
	n->l = n->r = NULL;
	n->prio = next_prio();
	n->refs = 1;
	return n;
}

static struct dnode *ref(struct dnode *n)
{
	if (n)
		n->refs++;
	return n;
}

static void release(struct dnode *n)
{
	while (n && --n->refs == 0) {
		struct dnode *r = n->r;

		release(n->l);
		free(n);
		n = r;
	}
}

/* Takes a reference to n and returns a node the caller may change: n itself
 * when it held the only one, else a copy (sharing n's children). */
static struct dnode *own(struct dnode *n)
{
	struct dnode *c;

	if (n->refs == 1)
		return n;
	c = node_alloc();
	*c = *n;
	c->refs = 1;
	ref(c->l);
	ref(c->r);
	n->refs--;
	return c;
}

/* Splits t (consumed) into the mappings starting below key and the rest. */
static void split(struct dnode *t, uint64_t key, struct dnode **lo,
		  struct dnode **hi)
{
	if (!t) {
		*lo = *hi = NULL;
		return;
	}
	t = own(t);
	if (t->m.start < key) {
		split(t->r, key, &t->r, hi);
		*lo = t;
	} else {
		split(t->l, key, lo, &t->l);
		*hi = t;
	}
}

/* Joins a and b (consumed), every start in a below every start in b. */
static struct dnode *merge(struct dnode *a, struct dnode *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a = own(a);
		a->r = merge(a->r, b);
		return a;
	}
	b = own(b);
	b->l = merge(a, b->l);
	return b;
}

static const struct dnode *last_node(const struct dnode *t)
{
	while (t && t->r)
		t = t->r;
	return t;
}

static size_t count(const struct dnode *t)
{
	size_t n = 0;

	for (; t; t = t->r)
		n += 1 + count(t->l);
	return n;
}

/* A piece [start, end) of m; a file mapping's offset follows its start. */
static struct dnode *piece(const struct dmap *m, uint64_t start, uint64_t end)
{
	struct dmap p = *m;

	if (p.file[0])
		p.offset += start - m->start;
	p.start = start;
	p.end = end;
	return node_new(&p);
}

/* Cuts the map of as into what lies below start (*lo), what lies in
 * [start, end) (*mid, mappings crossing a bound cut there) and what lies
 * from end on (*hi). as->root is consumed. */
static void isolate(struct das *as, uint64_t start, uint64_t end,
		    struct dnode **lo, struct dnode **mid, struct dnode **hi)
{
	/* as->n stays the count of lo, mid and hi together */
	struct dnode *l, *m, *r, *x, *pre = NULL, *post = NULL;
	const struct dnode *last;

	split(as->root, start, &l, &r);
	as->root = NULL;
	last = last_node(l);
	if (last && last->m.end > start) {
		struct dmap cross = last->m;

		split(l, cross.start, &l, &x);
		release(x);
		l = merge(l, piece(&cross, cross.start, start));
		pre = piece(&cross, start, cross.end < end ? cross.end : end);
		as->n++;
		if (cross.end > end) {
			post = piece(&cross, end, cross.end);
			as->n++;
		}
	}
	split(r, end, &m, &r);
	last = last_node(m);
	if (last && last->m.end > end) {
		struct dmap cross = last->m;

		split(m, cross.start, &m, &x);
		release(x);
		m = merge(m, piece(&cross, cross.start, end));
		post = piece(&cross, end, cross.end);
		as->n++;
	}
	*lo = l;
	*mid = merge(pre, m);
	*hi = merge(post, r);
}

struct das *das_new(void)
{
	struct das *as = calloc(1, sizeof(*as));

	if (as)
		as->refs = 1;
	return as;
}

struct das *das_copy(const struct das *as)
{
	struct das *c = das_new();

	if (!c)
		return NULL;
	c->root = ref(as->root);
	c->n = as->n;
	c->brk_start = as->brk_start;
	c->brk_end = as->brk_end;
	c->stack_end = as->stack_end;
	c->sp0 = as->sp0;
	return c;
}

void das_put(struct das *as)
{
	if (!as || --as->refs)
		return;
	release(as->root);
	free(as);
}

int das_unmap(struct das *as, uint64_t start, uint64_t end)
{
	struct dnode *l, *m, *r;

	if (start >= end)
		return 0;
	isolate(as, start, end, &l, &m, &r);
	as->n -= count(m);
	release(m);
	as->root = merge(l, r);
	return 0;
}

int das_map(struct das *as, const struct dmap *m)
{
	struct dnode *l, *mid, *r;

	if (m->start >= m->end)
		return 0;
	isolate(as, m->start, m->end, &l, &mid, &r);
	as->n -= count(mid);
	release(mid);
	as->root = merge(merge(l, node_new(m)), r);
	as->n++;
	return 0;
}

/* Applies prot to every node of t (consumed), copying shared ones. */
static struct dnode *set_prot(struct dnode *t, uint32_t prot)
{
	if (!t)
		return NULL;
	t = own(t);
	t->m.prot = prot;
	if (prot & PROT_WRITE)
		t->m.flags |= DM_WRITTEN;
	t->l = set_prot(t->l, prot);
	t->r = set_prot(t->r, prot);
	return t;
}

int das_protect(struct das *as, uint64_t start, uint64_t end, uint32_t prot)
{
	struct dnode *l, *m, *r;

	if (start >= end)
		return 0;
	isolate(as, start, end, &l, &m, &r);
	as->root = merge(merge(l, set_prot(m, prot)), r);
	return 0;
}

static void collect(const struct dnode *t, struct dmap *out, size_t *n)
{
	for (; t; t = t->r) {
		collect(t->l, out, n);
		out[(*n)++] = t->m;
	}
}

int das_move(struct das *as, uint64_t old, uint64_t oldlen, uint64_t new_addr,
	     uint64_t newlen)
{
	struct dnode *l, *m, *r;
	struct dmap *moved;
	size_t n = 0, i;
	int err = 0;

	if (!oldlen)
		return 0;
	isolate(as, old, old + oldlen, &l, &m, &r);
	n = count(m);
	moved = n ? malloc(n * sizeof(*moved)) : NULL;
	if (n && !moved) {
		as->root = merge(merge(l, m), r);
		return -ENOMEM;
	}
	n = 0;
	collect(m, moved, &n);
	release(m);
	as->n -= n;
	as->root = merge(l, r);
	for (i = 0; !err && i < n; i++) {
		struct dmap mv = moved[i];
		uint64_t rel = mv.start - old;

		if (rel >= newlen)
			break;
		mv.start = new_addr + rel;
		mv.end = new_addr + (mv.end - old);
		/* shrinking cuts the tail; growing extends the last part */
		if (mv.end > new_addr + newlen || i == n - 1)
			mv.end = new_addr + newlen;
		/* the label travels with the mapping */
		mv.label_base = mv.label_base - old + new_addr;
		err = das_map(as, &mv);
	}
	free(moved);
	return err;
}

const struct dmap *das_find(const struct das *as, uint64_t addr)
{
	const struct dnode *t = as->root, *best = NULL;

	while (t) {
		if (t->m.start <= addr) {
			best = t;
			t = t->r;
		} else {
			t = t->l;
		}
	}
	return best && addr < best->m.end ? &best->m : NULL;
}

/* Whether a mapping in t overlapping [start, end) lacks DM_WRITTEN. Starts
 * and ends both grow left to right: whole subtrees are passed over. */
static bool needs_mark(const struct dnode *t, uint64_t start, uint64_t end)
{
	while (t) {
		if (t->m.start >= end) {
			t = t->l;
		} else if (t->m.end <= start) {
			t = t->r;
		} else {
			if (!(t->m.flags & DM_WRITTEN))
				return true;
			if (needs_mark(t->l, start, end))
				return true;
			t = t->r;
		}
	}
	return false;
}

static struct dnode *mark(struct dnode *t, uint64_t start, uint64_t end)
{
	if (!t || !needs_mark(t, start, end))
		return t;
	t = own(t);
	if (t->m.start < end && t->m.end > start)
		t->m.flags |= DM_WRITTEN;
	t->l = mark(t->l, start, end);
	t->r = mark(t->r, start, end);
	return t;
}

void das_mark_written(struct das *as, uint64_t start, uint64_t end)
{
	if (start < end && needs_mark(as->root, start, end))
		as->root = mark(as->root, start, end);
}

const struct dmap *das_iter_first(const struct das *as, uint64_t from,
				  struct das_iter *it)
{
	const struct dnode *t = as ? as->root : NULL;

	it->depth = 0;
	/* the path to the first mapping ending after from */
	while (t) {
		if (t->m.end > from) {
			if (it->depth == DAS_ITER_DEPTH)
				abort(); /* a treap this deep: 2^-90 odds */
			it->stack[it->depth++] = t;
			t = t->l;
		} else {
			t = t->r;
		}
	}
	return it->depth ? &((const struct dnode *)it->stack[it->depth - 1])->m
			 : NULL;
}

const struct dmap *das_iter_next(struct das_iter *it)
{
	const struct dnode *t;

	if (!it->depth)
		return NULL;
	t = it->stack[--it->depth];
	for (t = t->r; t; t = t->l) {
		if (it->depth == DAS_ITER_DEPTH)
			abort();
		it->stack[it->depth++] = t;
	}
	return it->depth ? &((const struct dnode *)it->stack[it->depth - 1])->m
			 : NULL;
}

void dump_maps_diff(const struct mrr_dump *d, const struct das *before,
		    const struct das *after,
		    void (*emit)(const struct das *as, const struct dmap *m,
				 char sign, void *arg),
		    void *arg)
{
	static const uint64_t all[2] = {0, UINT64_MAX};
	const uint64_t *rg = d->ndiff ? &d->diff[0][0] : all;
	int nr = d->ndiff ? d->ndiff : 1;

	/* removed or changed mappings, then added or changed ones; only
	 * those near what the event changed can differ */
	for (int pass = 0; pass < 2; pass++) {
		const struct das *a = pass ? after : before;
		const struct das *b = pass ? before : after;

		for (int k = 0; a && k < nr; k++) {
			uint64_t lo = rg[2 * k] ? rg[2 * k] - 1 : 0;
			uint64_t hi = rg[2 * k + 1];
			struct das_iter it;
			const struct dmap *m;

			for (m = das_iter_first(a, lo, &it);
			     m && m->start <= hi; m = das_iter_next(&it)) {
				const struct dmap *o =
					b ? das_find(b, m->start) : NULL;

				if (o && !memcmp(o, m, sizeof(*m)))
					continue;
				emit(a, m, pass ? '+' : '-', arg);
			}
		}
	}
}

void dmap_perms(const struct dmap *m, char out[5])
{
	out[0] = m->prot & PROT_READ ? 'r' : '-';
	out[1] = m->prot & PROT_WRITE ? 'w' : '-';
	out[2] = m->prot & PROT_EXEC ? 'x' : '-';
	out[3] = m->flags & DM_SHARED ? 's' : 'p';
	out[4] = 0;
}
