/* Replay of the program's own ptrace calls: see vptrace.h. */
#include "replay/vptrace.h"

#include "replay/ptask.h"
#include "replay/session.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ptrace.h>

int replay_vptrace(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	long req = (long)ev->args[0];
	struct ptask *x;

	if ((req != PTRACE_POKEDATA && req != PTRACE_POKETEXT) ||
	    ev->result != 0)
		return 0;
	x = ptask_find(rp, (pid_t)ev->args[1]);
	if (!x) {
		diverge(rp, t,
			"ptrace(PTRACE_POKEDATA) wrote into pid %d at record, "
			"which the replay does not have",
			(int)ev->args[1]);
		return -1;
	}
	if (ptrace(PTRACE_POKEDATA, x->t.tid, ev->args[2], ev->args[3]) < 0) {
		diverge(rp, t,
			"cannot repeat the tracer's write of 0x%" PRIx64
			" at 0x%" PRIx64 " in pid %d: %s",
			ev->args[3], ev->args[2], (int)ev->args[1],
			strerror(errno));
		return -1;
	}
	replay_mem_written(rp, x, ev->args[2], 8, ev->seq);
	return 0;
}
