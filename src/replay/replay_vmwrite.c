/* process_vm_writev into a recorded process: the replay makes the same
 * write into the replayed target at the caller's event (struct
 * mrr_vm_write_extra, written by src/record/record_vmwrite.c), from the
 * extra, or for a big write from the event's writes. The extra is
 * untrusted: every length is checked before it is used. */
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "replay/ptask.h"

#include <inttypes.h>
#include <string.h>

/* A write bigger than an extra holds: the event's writes are the ranges
 * and bytes, at the target's addresses. They go into the target, and none
 * into the caller (emulate() then writes nothing). */
static int big_write(struct replayer *rp, struct ptask *t,
		     const struct mrr_vm_write_extra *x)
{
	struct mrr_event *ev = &rp->ev;
	struct ptask *target;
	uint64_t total = 0;

	if (ev->extra_len != sizeof(*x) || ev->nwrites == 0 || ev->result <= 0)
		goto bad;
	for (uint32_t i = 0; i < ev->nwrites; i++) {
		if (ev->writes[i].len > (uint64_t)ev->result)
			goto bad;
		total += ev->writes[i].len;
	}
	if (total != (uint64_t)ev->result)
		goto bad;
	target = ptask_find(rp, x->target);
	if (!target) {
		diverge(rp, t,
			"process_vm_writev wrote into pid %d at record, which "
			"is not a replayed process here",
			(int)x->target);
		return -1;
	}
	if (apply_writes(rp, target, ev) < 0)
		return -1;
	ev->nwrites = 0;
	return 0;
bad:
	mrr_err("trace %s: process_vm_writev event %" PRIu64 " is malformed",
		rp->o->trace_dir, ev->seq);
	rp->status = MRR_EXIT_DATAERR;
	return -1;
}

int replay_vm_write(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	const uint8_t *p = ev->extra, *data;
	struct mrr_vm_write_extra x;
	uint64_t total = 0, need;
	struct ptask *target;

	if (ev->extra_len == 0)
		return 0; /* the target was outside the recording */
	if (ev->extra_len < sizeof(x))
		goto bad;
	memcpy(&x, p, sizeof(x));
	if (x.nranges == 0)
		return big_write(rp, t, &x);
	need = sizeof(x) + (uint64_t)x.nranges * 16;
	if (x.nranges > 1024 || need > ev->extra_len)
		goto bad;
	for (uint32_t i = 0; i < x.nranges; i++) {
		uint64_t len;

		memcpy(&len, p + sizeof(x) + i * 16 + 8, 8);
		if (len > MRR_VM_WRITE_MAX)
			goto bad;
		total += len;
	}
	if (need + total != ev->extra_len || ev->result < 0 ||
	    total != (uint64_t)ev->result)
		goto bad;
	target = ptask_find(rp, x.target);
	if (!target) {
		diverge(rp, t,
			"process_vm_writev wrote into pid %d at record, which "
			"is not a replayed process here",
			(int)x.target);
		return -1;
	}
	data = p + need;
	for (uint32_t i = 0; i < x.nranges; i++) {
		uint64_t rg[2];

		memcpy(rg, p + sizeof(x) + i * 16, 16);
		if (tracee_write_all(&target->t, rg[0], data, rg[1]) < 0) {
			diverge(rp, t,
				"cannot write the %" PRIu64 " bytes "
				"process_vm_writev wrote at 0x%" PRIx64
				" of pid %d",
				rg[1], rg[0], (int)x.target);
			return -1;
		}
		data += rg[1];
	}
	return 0;
bad:
	mrr_err("trace %s: process_vm_writev event %" PRIu64 " is malformed",
		rp->o->trace_dir, ev->seq);
	rp->status = MRR_EXIT_DATAERR;
	return -1;
}
