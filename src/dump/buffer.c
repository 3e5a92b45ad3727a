/* -b: the records a syscall buffer flush (MRR_EV_BUFFER) carried.
 *
 * A flush event holds the records in its extra bytes, args[0] their length
 * and args[1] their count; the records' layout is the buffer's ABI
 * (src/syscallbuf/abi.h), walked by src/core/sbuf_records.h. Records
 * print like syscall events, decoded with the syscall table; a record keeps
 * only the first three arguments. */
#include "dump/internal.h"

#include <errno.h>
#include "syscalls/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#if __has_include("core/sbuf_records.h")
#include "core/sbuf_records.h"
#define HAVE_SBUF_RECORDS 1
#endif

#ifdef HAVE_SBUF_RECORDS
/* The syscall a record stands for, as an event the syscall printers take:
 * the record keeps the first three arguments only. */
static void record_event(const struct mrr_event *flush,
			 const struct mrr_syscallbuf_rec *rec,
			 struct mrr_event *out, int *nargs)
{
	const struct mrr_syscall_desc *desc = mrr_syscall_lookup(rec->nr);

	memset(out, 0, sizeof(*out));
	out->seq = flush->seq;
	out->kind = MRR_EV_SYSCALL;
	out->flags = MRR_EVF_BUFFERED;
	out->tid = flush->tid;
	out->nr = rec->nr;
	memcpy(out->args, rec->args, sizeof(rec->args));
	out->result = rec->result;
	*nargs = desc ? desc->nargs : 3;
}

/* Calls fn for each record of flush; returns a message for a malformed
 * one, or NULL. */
static const char *walk(const struct mrr_event *flush,
			void (*fn)(struct mrr_dump *d, int i,
				   const struct mrr_event *ev, int nargs,
				   uint32_t data_len, void *arg),
			struct mrr_dump *d, void *arg, char *err, size_t errlen)
{
	const struct mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	struct mrr_event ev;
	uint8_t *recs;
	size_t off = 0;
	int k, i = 0, nargs;

	if (!flush->extra_len)
		return NULL;
	/* the walker wants 8-byte alignment; extra may not have it */
	recs = malloc(flush->extra_len);
	if (!recs)
		return "out of memory";
	memcpy(recs, flush->extra, flush->extra_len);
	while ((k = sbuf_next(recs, flush->extra_len, &off, &rec, &data, err,
			      errlen)) > 0) {
		record_event(flush, rec, &ev, &nargs);
		fn(d, i++, &ev, nargs, rec->data_len, arg);
	}
	free(recs);
	return k < 0 ? err : NULL;
}

static void protect_record(struct mrr_dump *d, int i,
			   const struct mrr_event *ev, int nargs,
			   uint32_t data_len, void *arg)
{
	(void)d;
	(void)i;
	(void)nargs;
	(void)data_len;
	if (ev->nr == SYS_mprotect && ev->result == 0)
		das_protect(arg, ev->args[0],
			    ev->args[0] + ((ev->args[1] + 4095) & ~4095ull),
			    (uint32_t)ev->args[2]);
}

void dump_buffer_apply_maps(struct mrr_dump *d, struct das *as,
			    const struct mrr_event *ev)
{
	char err[160];

	(void)walk(ev, protect_record, d, as, err, sizeof(err));
}

static void text_record(struct mrr_dump *d, int i, const struct mrr_event *ev,
			int nargs, uint32_t data_len, void *arg)
{
	struct dtask *t = dump_task(d, ev->tid, true);
	const struct das *as = t ? t->as : NULL;
	const char *name = dump_syscall_name(ev->nr);
	struct sc_arg args[6];
	struct sbuf b = {0};
	bool masked;
	int n, k;

	dump_syscall_args(d, as, ev, args, &n);
	if (name)
		sb_printf(&b, "      #%d %s(", i, name);
	else
		sb_printf(&b, "      #%d syscall_%" PRId64 "(", i, ev->nr);
	for (k = 0; k < n && k < 3; k++)
		sb_printf(&b, "%s%s", k ? ", " : "", args[k].text);
	if (nargs > 3)
		sb_puts(&b, ", ...");
	sb_puts(&b, ") = ");
	dump_syscall_result(d, as, ev, &b, &masked);
	sb_puts(&b, "  buffered");
	if (data_len)
		sb_printf(&b, ", wrote %u bytes", data_len);
	sb_puts(&b, "\n");
	fputs(b.s ? b.s : "", arg);
	sb_free(&b);
}

static void json_record(struct mrr_dump *d, int i, const struct mrr_event *ev,
			int nargs, uint32_t data_len, void *arg)
{
	struct dtask *t = dump_task(d, ev->tid, true);
	const struct das *as = t ? t->as : NULL;
	const char *name = dump_syscall_name(ev->nr);
	struct sbuf *b = arg, r = {0};
	struct sc_arg args[6];
	bool masked;
	int n, k;

	dump_syscall_args(d, as, ev, args, &n);
	sb_printf(b, "%s{\"nr\":%" PRId64 ",\"name\":", i ? "," : "", ev->nr);
	if (name)
		sb_json_str(b, name, strlen(name));
	else
		sb_puts(b, "null");
	sb_puts(b, ",\"decoded\":[");
	for (k = 0; k < n && k < 3; k++) {
		sb_puts(b, k ? "," : "");
		sb_json_str(b, args[k].text, strlen(args[k].text));
	}
	dump_syscall_result(d, as, ev, &r, &masked);
	sb_puts(b, "],\"result\":");
	if (masked)
		sb_json_str(b, r.s, r.len);
	else
		sb_printf(b, "%" PRId64, ev->result);
	sb_puts(b, ",\"result_text\":");
	sb_json_str(b, r.s ? r.s : "", r.len);
	sb_printf(b, ",\"data_len\":%u}", data_len);
	sb_free(&r);
	(void)nargs;
}
#endif

void dump_buffer_records(struct mrr_dump *d, const struct mrr_event *ev,
			 FILE *out)
{
	const struct mrr_trace_info *info = d->r ? mrr_trace_info(d->r) : NULL;
#ifdef HAVE_SBUF_RECORDS
	char err[160];
	const char *bad;
#endif

	fprintf(out,
		"    flush: %" PRIu64 " bytes, %" PRIu64
		" records, buffer ABI %u\n",
		ev->args[0], ev->args[1], info ? info->syscallbuf_abi : 0);
#ifdef HAVE_SBUF_RECORDS
	bad = walk(ev, text_record, d, out, err, sizeof(err));
	if (bad)
		fprintf(out, "      bad record: %s\n", bad);
#endif
}

void dump_buffer_json(struct mrr_dump *d, const struct mrr_event *ev,
		      struct sbuf *b)
{
#ifdef HAVE_SBUF_RECORDS
	char err[160];
	const char *bad;

	sb_puts(b, ",\"calls\":[");
	bad = walk(ev, json_record, d, b, err, sizeof(err));
	sb_puts(b, "]");
	if (bad) {
		sb_puts(b, ",\"bad_record\":");
		sb_json_str(b, bad, strlen(bad));
	}
#else
	(void)d;
	(void)ev;
	(void)b;
#endif
}
