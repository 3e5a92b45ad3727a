/* The recorder's side of the syscall buffer (protocol in
 * src/syscallbuf/abi.h): registration, and flushing the task's records into
 * the trace before each of its traced events. The buffer lives in the
 * recorded program's memory, so everything read from it is checked. */
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/sbuf_records.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void corrupted(struct recorder *rec, struct rtask *t, const char *why)
{
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "the syscall buffer of pid %d is corrupted (%s) at event "
		 "%llu; the program overwrote it",
		 t->t.tid, why,
		 (unsigned long long)mrr_trace_writer_events(rec->w));
}

void rec_sbuf_flush(struct recorder *rec, struct rtask *t)
{
	static uint8_t *recs;
	struct mrr_syscallbuf_hdr h;
	struct mrr_event ev = {0};
	struct capture c = {0};
	const struct mrr_syscallbuf_rec *r;
	const uint8_t *data;
	size_t off = 0;
	uint32_t n = 0, zero = 0;
	char err[160];
	int k;

	if (!t->sbuf_addr)
		return;
	if (tracee_read_all(&t->t, t->sbuf_addr, &h, sizeof(h)) < 0) {
		corrupted(rec, t, "its header cannot be read");
		return;
	}
	if (h.magic != MRR_SYSCALLBUF_MAGIC ||
	    h.abi != MRR_SYSCALLBUF_ABI_VERSION) {
		corrupted(rec, t, "bad magic or version");
		return;
	}
	if (h.used == 0 || h.busy)
		return;
	if (h.used > MRR_SYSCALLBUF_SIZE - sizeof(h)) {
		corrupted(rec, t, "record bytes exceed the buffer");
		return;
	}
	if (!recs && !(recs = malloc(MRR_SYSCALLBUF_SIZE)))
		return;
	if (tracee_read_all(&t->t, t->sbuf_addr + sizeof(h), recs, h.used) <
	    0) {
		corrupted(rec, t, "its records cannot be read");
		return;
	}
	while ((k = sbuf_next(recs, h.used, &off, &r, &data, err,
			      sizeof(err))) > 0)
		n++;
	if (k < 0) {
		corrupted(rec, t, err);
		return;
	}
	capture_extra(&c, recs, h.used);
	ev.kind = MRR_EV_BUFFER;
	ev.tid = t->t.tid;
	ev.args[0] = h.used;
	ev.args[1] = n;
	rec_write_event(rec, t, &ev, &c);
	free(c.extra);
	if (tracee_write_all(&t->t,
			     t->sbuf_addr +
				     offsetof(struct mrr_syscallbuf_hdr, used),
			     &zero, sizeof(zero)) < 0)
		corrupted(rec, t, "it cannot be reset");
}

/* REGISTER at its seccomp stop. Returns the result the library sees. */
int64_t rec_sbuf_register(struct recorder *rec, struct rtask *t)
{
	struct mrr_syscallbuf_hdr h;
	uint64_t addr = t->args[0];

	if (!rec->syscallbuf || t->args[1] != MRR_SYSCALLBUF_ABI_VERSION)
		return -ENOSYS;
	if ((addr & 4095) || tracee_read_all(&t->t, addr, &h, sizeof(h)) < 0 ||
	    h.magic != MRR_SYSCALLBUF_MAGIC)
		return -EINVAL;
	t->sbuf_addr = addr;
	return 0;
}

/* The program installs a seccomp filter of its own: it would see the
 * MADV_COLD probes, so buffered madvise stops. */
void rec_sbuf_no_probe(struct rtask *t)
{
	uint32_t one = 1;

	if (t->sbuf_addr &&
	    tracee_write_all(&t->t,
			     t->sbuf_addr + offsetof(struct mrr_syscallbuf_hdr,
						     no_probe),
			     &one, sizeof(one)) < 0)
		t->sbuf_addr = 0;
}

/* A signal is held back for t: make its next buffered call a traced one,
 * where the signal can be delivered. */
void rec_sbuf_trace_next(struct rtask *t)
{
	uint32_t one = 1;

	if (t->sbuf_addr &&
	    tracee_write_all(&t->t,
			     t->sbuf_addr + offsetof(struct mrr_syscallbuf_hdr,
						     trace_next),
			     &one, sizeof(one)) < 0)
		t->sbuf_addr = 0;
}
