/* Naming values: addresses, tids, stored files and strings, with --stable
 * masking what changes from one recording to the next. */
#include "dump/internal.h"
#include "syscalls/table.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Numbers below this are constants, not addresses, even in --stable. */
#define SMALL_CONSTANT 0x10000ull
/* How far below the initial stack pointer the stack may grow (the usual
 * 8 MiB limit, with room to spare) and above brk_start the heap may reach,
 * for naming addresses that fall outside the mappings seen. */
#define STACK_REACH (64ull << 20)
#define HEAP_REACH  (1ull << 32)

static void label_off(struct sbuf *b, const char *label, uint64_t base,
		      uint64_t v)
{
	if (v == base)
		sb_puts(b, label);
	else if (v > base)
		sb_printf(b, "%s+0x%llx", label,
			  (unsigned long long)(v - base));
	else
		sb_printf(b, "%s-0x%llx", label,
			  (unsigned long long)(base - v));
}

bool dump_addr(struct mrr_dump *d, const struct das *as, uint64_t v,
	       enum addr_kind k, struct sbuf *b)
{
	const struct dmap *m;

	if (v == 0 && k == ADDR_PTR) {
		sb_puts(b, "NULL");
		return false;
	}
	if (!(d->flags & MRR_DUMP_STABLE) || v < SMALL_CONSTANT) {
		if (v == 0 && k == ADDR_HEX)
			sb_puts(b, "0");
		else
			sb_printf(b, "0x%llx", (unsigned long long)v);
		return false;
	}
	if (as) {
		m = das_find(as, v);
		if (m && m->label[0]) {
			label_off(b, m->label, m->label_base, v);
			return true;
		}
		if (as->brk_start && v >= as->brk_start &&
		    v - as->brk_start < HEAP_REACH) {
			label_off(b, "heap", as->brk_start, v);
			return true;
		}
		if (as->stack_end && v < as->stack_end &&
		    as->stack_end - v < STACK_REACH) {
			label_off(b, "stack", as->sp0, v);
			return true;
		}
	}
	if (k == ADDR_HEX) {
		sb_printf(b, "0x%llx", (unsigned long long)v);
		return false;
	}
	sb_puts(b, "0xADDR");
	return true;
}

int32_t dump_tid(struct mrr_dump *d, int32_t tid)
{
	struct tidname *t;
	size_t i;

	if (!(d->flags & MRR_DUMP_STABLE) || tid <= 0)
		return tid;
	i = (size_t)tid_index_get(&d->tid_ix, tid);
	if (i != (size_t)-1)
		return d->tids[i].id;
	if (tid_index_put(&d->tid_ix, tid, (uint32_t)d->ntids))
		return -1;
	if (d->ntids == d->tids_cap) {
		size_t ncap = d->tids_cap ? d->tids_cap * 2 : 16;

		t = realloc(d->tids, ncap * sizeof(*t));
		if (!t)
			return -1;
		d->tids = t;
		d->tids_cap = ncap;
	}
	d->tids[d->ntids].tid = tid;
	d->tids[d->ntids].id = (int32_t)d->ntids + 1;
	return d->tids[d->ntids++].id;
}

int32_t mrr_dump_tid_name(struct mrr_dump *d, int32_t tid)
{
	return dump_tid(d, tid);
}

void dump_file(struct mrr_dump *d, const char *name, struct sbuf *b)
{
	size_t i;

	if (!(d->flags & MRR_DUMP_STABLE) || !name[0]) {
		sb_puts(b, name[0] ? name : "-");
		return;
	}
	for (i = 0; i < d->nfiles; i++)
		if (!strcmp(d->files[i], name))
			break;
	if (i == d->nfiles) {
		if (d->nfiles == d->files_cap) {
			size_t ncap = d->files_cap ? d->files_cap * 2 : 16;
			void *p = realloc(d->files, ncap * sizeof(*d->files));

			if (!p) {
				sb_puts(b, "file#?");
				return;
			}
			d->files = p;
			d->files_cap = ncap;
		}
		snprintf(d->files[d->nfiles++], MRR_STORED_NAME_MAX, "%s",
			 name);
	}
	sb_printf(b, "file#%zu", i + 1);
}

/* Reads len bytes at addr from the stored file behind a mapping that still
 * holds the file's bytes: mapped from a stored file, readable, never
 * writable since. Returns the bytes read (short at the mapping's or the
 * file's end), or -1. */
static long read_mapped(struct mrr_dump *d, const struct das *as, uint64_t addr,
			char *out, size_t len)
{
	const struct dmap *m;
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	if (!d->r || !as || !len)
		return -1;
	m = das_find(as, addr);
	if (!m || !m->file[0] || (m->flags & DM_WRITTEN) ||
	    !(m->prot & 1 /* PROT_READ */))
		return -1;
	if (mrr_trace_file_path(d->r, m->file, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (m->end - addr < len)
		len = m->end - addr;
	n = pread(fd, out, len, (off_t)(m->offset + (addr - m->start)));
	close(fd);
	return n > 0 ? (long)n : -1;
}

long dump_read_bytes(struct mrr_dump *d, const struct das *as, uint64_t addr,
		     char *out, size_t len)
{
	long n = read_mapped(d, as, addr, out, len);

	return n == (long)len ? n : -1;
}

long dump_read_string(struct mrr_dump *d, const struct das *as, uint64_t addr,
		      char *out, size_t outlen, bool *cut)
{
	long n;
	char *nul;

	*cut = false;
	if (outlen < 2)
		return -1;
	n = read_mapped(d, as, addr, out, outlen);
	if (n < 0)
		return -1;
	nul = memchr(out, 0, (size_t)n);
	if (nul)
		return nul - out;
	/* no NUL in reach: longer than outlen - 1, or past the file's end */
	if ((size_t)n < outlen)
		return -1;
	*cut = true;
	out[outlen - 1] = 0;
	return (long)outlen - 1;
}
