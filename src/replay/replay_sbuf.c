/* The replayer's side of the syscall buffer (protocol in
 * src/syscallbuf/abi.h): the task's recorded records are put into its
 * buffer while it is stopped, and the library returns them in-process. */
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/sbuf_records.h"
#include "core/seccomp_filter.h"
#include "replay/ptask.h"
#include "syscallbuf/abi.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int write_u32(struct ptask *t, size_t field, uint32_t v)
{
	return tracee_write_all(&t->t, t->sbuf_addr + field, &v, sizeof(v));
}

void replay_buffer(struct replayer *rp, struct ptask *t)
{
	static uint8_t *recs;
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_syscallbuf_rec *r;
	const uint8_t *data;
	size_t off = 0;
	char err[160];
	int k;

	if (!t->sbuf_addr) {
		diverge(rp, t,
			"buffered records for a task whose syscall "
			"buffer was never registered");
		return;
	}
	if (ev->extra_len == 0 ||
	    ev->extra_len >
		    MRR_SYSCALLBUF_SIZE - sizeof(struct mrr_syscallbuf_hdr)) {
		mrr_err("trace %s: buffer event %" PRIu64 " has a bad size",
			rp->o->trace_dir, ev->seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	/* the records are read in place, so they need their alignment */
	if (!recs && !(recs = aligned_alloc(8, MRR_SYSCALLBUF_SIZE))) {
		rp->status = MRR_EXIT_OSERR;
		return;
	}
	memcpy(recs, ev->extra, ev->extra_len);
	while ((k = sbuf_next(recs, ev->extra_len, &off, &r, &data, err,
			      sizeof(err))) > 0)
		;
	if (k < 0) {
		mrr_err("trace %s: buffer event %" PRIu64 " is corrupt: %s",
			rp->o->trace_dir, ev->seq, err);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	if (tracee_write_all(&t->t,
			     t->sbuf_addr + sizeof(struct mrr_syscallbuf_hdr),
			     ev->extra, ev->extra_len) < 0 ||
	    write_u32(t, offsetof(struct mrr_syscallbuf_hdr, used), 0) < 0 ||
	    write_u32(t, offsetof(struct mrr_syscallbuf_hdr, avail),
		      ev->extra_len) < 0)
		diverge(rp, t, "cannot fill the syscall buffer at 0x%" PRIx64,
			t->sbuf_addr);
}

int replay_sbuf_check_consumed(struct replayer *rp, struct ptask *t)
{
	struct mrr_syscallbuf_hdr h;

	if (!t->sbuf_addr)
		return 0;
	if (tracee_read_all(&t->t, t->sbuf_addr, &h, sizeof(h)) < 0) {
		diverge(rp, t, "the syscall buffer is gone");
		return -1;
	}
	if (h.used != h.avail) {
		diverge(rp, t,
			"the program used %u of %u bytes of buffered records "
			"before this syscall; at record it used all",
			h.used, h.avail);
		return -1;
	}
	return 0;
}

/* REGISTER: the buffer is at the same address as at record. */
/* As the recorder does (record_sbuf.c), from the same facts. */
static void add_no_probe(struct ptask *t, uint32_t bits)
{
	const size_t field = offsetof(struct mrr_syscallbuf_hdr, no_probe);
	uint32_t v = 0;

	if (!t->sbuf_addr || !bits)
		return;
	if (tracee_read_all(&t->t, t->sbuf_addr + field, &v, sizeof(v)) < 0)
		v = 0;
	if (write_u32(t, field, v | bits) < 0)
		mrr_debug("pid %d: cannot set no_probe", t->t.tid);
}

int replay_sbuf_register(struct replayer *rp, struct ptask *t)
{
	if (rp->ev.result != 0)
		return 0;
	t->sbuf_addr = rp->ev.args[0];
	if (write_u32(t, offsetof(struct mrr_syscallbuf_hdr, replaying), 1) <
		    0 ||
	    write_u32(t, offsetof(struct mrr_syscallbuf_hdr, avail), 0) < 0) {
		diverge(rp, t, "cannot set up the syscall buffer at 0x%" PRIx64,
			t->sbuf_addr);
		return -1;
	}
	add_no_probe(t, mrr_seccomp_sbuf_bits(&t->t, -1, NULL));
	return 0;
}

void replay_sbuf_no_probe(struct replayer *rp, struct ptask *t)
{
	add_no_probe(t, mrr_seccomp_sbuf_bits(&t->t, rp->ev.nr, rp->ev.args));
}
