/* The memory map of each recorded address space, rebuilt from the events
 * that change it. It is the recorder's view replayed on paper: the kernel's
 * choices (addresses, merged or split VMAs) are taken from the results. */
#include "dump/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
	c->brk_start = as->brk_start;
	c->brk_end = as->brk_end;
	c->stack_end = as->stack_end;
	c->sp0 = as->sp0;
	if (as->n) {
		c->v = malloc(as->n * sizeof(*c->v));
		if (!c->v) {
			free(c);
			return NULL;
		}
		memcpy(c->v, as->v, as->n * sizeof(*c->v));
		c->n = c->cap = as->n;
	}
	return c;
}

void das_put(struct das *as)
{
	if (!as || --as->refs)
		return;
	free(as->v);
	free(as);
}

static int reserve(struct das *as, size_t more)
{
	size_t ncap;
	struct dmap *v;

	if (as->n + more <= as->cap)
		return 0;
	ncap = as->cap ? as->cap * 2 : 16;
	while (ncap < as->n + more)
		ncap *= 2;
	v = realloc(as->v, ncap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	as->v = v;
	as->cap = ncap;
	return 0;
}

/* Splits the mapping holding addr (if any) so that addr starts one. */
static int split_at(struct das *as, uint64_t addr)
{
	size_t i;

	for (i = 0; i < as->n; i++) {
		struct dmap *m = &as->v[i];

		if (m->start < addr && addr < m->end) {
			if (reserve(as, 1))
				return -ENOMEM;
			m = &as->v[i];
			memmove(m + 1, m, (as->n - i) * sizeof(*m));
			as->n++;
			m[0].end = addr;
			m[1].start = addr;
			if (m[1].file[0])
				m[1].offset += addr - m[0].start;
			return 0;
		}
		if (m->start >= addr)
			break;
	}
	return 0;
}

int das_unmap(struct das *as, uint64_t start, uint64_t end)
{
	size_t i, j;

	if (start >= end)
		return 0;
	if (split_at(as, start) || split_at(as, end))
		return -ENOMEM;
	for (i = j = 0; i < as->n; i++) {
		if (as->v[i].start >= start && as->v[i].end <= end)
			continue;
		as->v[j++] = as->v[i];
	}
	as->n = j;
	return 0;
}

int das_map(struct das *as, const struct dmap *m)
{
	size_t i;

	if (m->start >= m->end)
		return 0;
	if (das_unmap(as, m->start, m->end) || reserve(as, 1))
		return -ENOMEM;
	for (i = 0; i < as->n && as->v[i].start < m->start; i++)
		;
	memmove(&as->v[i + 1], &as->v[i], (as->n - i) * sizeof(*m));
	as->v[i] = *m;
	as->n++;
	return 0;
}

int das_protect(struct das *as, uint64_t start, uint64_t end, uint32_t prot)
{
	size_t i;

	if (split_at(as, start) || split_at(as, end))
		return -ENOMEM;
	for (i = 0; i < as->n; i++) {
		struct dmap *m = &as->v[i];

		if (m->start >= start && m->end <= end) {
			m->prot = prot;
			if (prot & PROT_WRITE)
				m->flags |= DM_WRITTEN;
		}
	}
	return 0;
}

int das_move(struct das *as, uint64_t old, uint64_t oldlen, uint64_t new_addr,
	     uint64_t newlen)
{
	struct dmap *moved = NULL;
	size_t n = 0, i;
	int err = 0;

	if (split_at(as, old) || split_at(as, old + oldlen))
		return -ENOMEM;
	for (i = 0; i < as->n; i++)
		if (as->v[i].start >= old && as->v[i].end <= old + oldlen)
			n++;
	if (!n)
		return 0;
	moved = malloc(n * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < as->n; i++)
		if (as->v[i].start >= old && as->v[i].end <= old + oldlen)
			moved[n++] = as->v[i];
	err = das_unmap(as, old, old + oldlen);
	for (i = 0; !err && i < n; i++) {
		struct dmap m = moved[i];
		uint64_t rel = m.start - old;

		if (rel >= newlen)
			break;
		m.start = new_addr + rel;
		m.end = new_addr + (m.end - old);
		/* shrinking cuts the tail; growing extends the last part */
		if (m.end > new_addr + newlen || i == n - 1)
			m.end = new_addr + newlen;
		/* the label travels with the mapping */
		m.label_base = m.label_base - old + new_addr;
		err = das_map(as, &m);
	}
	free(moved);
	return err;
}

const struct dmap *das_find(const struct das *as, uint64_t addr)
{
	size_t lo = 0, hi = as->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < as->v[mid].start)
			hi = mid;
		else if (addr >= as->v[mid].end)
			lo = mid + 1;
		else
			return &as->v[mid];
	}
	return NULL;
}

void das_mark_written(struct das *as, uint64_t start, uint64_t end)
{
	size_t i;

	for (i = 0; i < as->n; i++)
		if (as->v[i].start < end && as->v[i].end > start)
			as->v[i].flags |= DM_WRITTEN;
}

void dmap_perms(const struct dmap *m, char out[5])
{
	out[0] = m->prot & PROT_READ ? 'r' : '-';
	out[1] = m->prot & PROT_WRITE ? 'w' : '-';
	out[2] = m->prot & PROT_EXEC ? 'x' : '-';
	out[3] = m->flags & DM_SHARED ? 's' : 'p';
	out[4] = 0;
}
