/* -b: the records a syscall buffer flush (MRR_EV_BUFFER) carried.
 *
 * A flush event holds the records in its extra bytes, args[0] their length
 * and args[1] their count; the records' layout is the buffer's ABI
 * (src/syscallbuf/abi.h), walked by src/core/sbuf_records.h. A build that
 * does not have that walker yet prints the flush's size and count only. */
#include "dump/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#if __has_include("core/sbuf_records.h")
#include "core/sbuf_records.h"
#define HAVE_SBUF_RECORDS 1
#endif

void dump_buffer_records(struct mrr_dump *d, const struct mrr_event *ev,
			 FILE *out)
{
	const struct mrr_trace_info *info = d->r ? mrr_trace_info(d->r) : NULL;

	fprintf(out,
		"    flush: %" PRIu64 " bytes, %" PRIu64
		" records, buffer ABI %u\n",
		ev->args[0], ev->args[1], info ? info->syscallbuf_abi : 0);
#ifdef HAVE_SBUF_RECORDS
	{
		const struct mrr_syscallbuf_rec *rec;
		const uint8_t *data;
		uint8_t *recs;
		char line[256], err[160];
		size_t off = 0;
		int k, i = 0;

		if (!ev->extra_len)
			return;
		/* the walker wants 8-byte alignment; extra may not have it */
		recs = malloc(ev->extra_len);
		if (!recs)
			return;
		memcpy(recs, ev->extra, ev->extra_len);
		while ((k = sbuf_next(recs, ev->extra_len, &off, &rec, &data,
				      err, sizeof(err))) > 0) {
			sbuf_describe(rec, line, sizeof(line));
			fprintf(out, "      #%d %s\n", i++, line);
		}
		if (k < 0)
			fprintf(out, "      bad record: %s\n", err);
		free(recs);
	}
#endif
}
