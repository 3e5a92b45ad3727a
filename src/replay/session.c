/* The replay session: opening a trace, replaying one event, finishing.
 * replay_run (run.c) is the loop around replay_step. */
#include "replay/session.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "replay/cleanup.h"
#include "replay/file_names.h"
#include "replay/point_digest.h"
#include "replay/preempt.h"
#include "replay/ptask.h"
#include "replay/replayer.h"
#include "replay/watchdog.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

int replay_open(struct replayer *rp, const struct replay_opts *o)
{
	char msg[512];
	int err;

	memset(rp, 0, sizeof(*rp));
	rp->o = o;
	err = mrr_trace_open(o->trace_dir,
			     MRR_READER_STREAM |
				     (o->force ? MRR_READER_FORCE : 0),
			     &rp->r, msg, sizeof(msg));
	if (err) {
		mrr_err("%s", msg);
		return err == -ENOENT ? MRR_EXIT_NOINPUT : MRR_EXIT_DATAERR;
	}
	rp->info = mrr_trace_info(rp->r);
	if (rp->info && rp->info->syscallbuf_abi &&
	    rp->info->syscallbuf_abi != MRR_SYSCALLBUF_ABI_VERSION) {
		/* The replayed program runs this mrr's library, which buffers
		 * other calls or flushes at other places than the recording's
		 * did: the replay would diverge at the first difference. */
		mrr_err("%s was recorded with syscall buffer protocol %u, and "
			"this mrr replays protocol %u: replay it with the mrr "
			"that recorded it (or record it again)",
			o->trace_dir, rp->info->syscallbuf_abi,
			MRR_SYSCALLBUF_ABI_VERSION);
		mrr_trace_close(rp->r);
		rp->r = NULL;
		return MRR_EXIT_DATAERR;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return 0;
}

void replay_close(struct replayer *rp)
{
	kill_all(rp);
	if (rp->r)
		mrr_trace_close(rp->r);
	rp->r = NULL;
	free(rp->verified);
	free(rp->copies);
	free(rp->extra);
	replay_free_file_paths(rp);
	rp->verified = NULL;
	rp->copies = NULL;
	rp->extra = NULL;
}

int replay_status(const struct replayer *rp)
{
	return rp->status;
}

void replay_position(const struct replayer *rp, struct replay_pos *pos)
{
	struct ptask *t = NULL;

	memset(pos, 0, sizeof(*pos));
	pos->event = rp->nreplayed;
	pos->progress = rp->progress;
	pos->unit = (enum replay_unit)rp->progress_unit;
	pos->tid = rp->progress_tid;
	if (pos->unit != REPLAY_AT_EVENT)
		t = ptask_find((struct replayer *)rp, pos->tid);
	if (t && tracee_get_regs(&t->t, &pos->regs) == 0)
		pos->stack_hash = replay_stack_hash(t, pos->regs.rsp);
}

uint64_t replay_stack_hash(struct ptask *t, uint64_t rsp)
{
	uint8_t stack[512];
	uint64_t h = 1469598103934665603ull;
	ssize_t n = tracee_read(&t->t, rsp, stack, sizeof(stack));

	for (ssize_t i = 0; i < n; i++)
		h = (h ^ stack[i]) * 1099511628211ull;
	return h;
}

/* Reads the next event into rp->ev unless it is there already. Returns 1,
 * 0 at the end of the trace, -1 (status set). */
int replay_peek(struct replayer *rp)
{
	int err;

	if (rp->have_next)
		return 1;
	if (rp->status)
		return -1;
	err = mrr_trace_next(rp->r, &rp->ev);
	if (err == 0)
		return 0;
	if (err < 0) {
		mrr_err("%s", mrr_trace_error_message(rp->r));
		rp->status = MRR_EXIT_DATAERR;
		return -1;
	}
	/* payload structs are read in place: give them alignment */
	if (rp->ev.extra_len) {
		if (rp->ev.extra_len > rp->extra_cap) {
			free(rp->extra);
			rp->extra_cap = rp->ev.extra_len;
			rp->extra =
				aligned_alloc(16, (rp->extra_cap + 15) & ~15u);
			if (!rp->extra)
				mrr_fatal("out of memory");
		}
		memcpy(rp->extra, rp->ev.extra, rp->ev.extra_len);
		rp->ev.extra = rp->extra;
	}
	replay_note_file_paths(rp);
	rp->have_next = true;
	return 1;
}

int replay_step(struct replayer *rp)
{
	struct ptask *t;
	int k = replay_peek(rp);

	if (k <= 0)
		return k;
	rp->have_next = false;
	rp->progress = 0;
	rp->progress_unit = REPLAY_AT_EVENT;
	if (rp->ev.kind == MRR_EV_EXEC) {
		replay_exec(rp);
		remember(rp);
		rp->nreplayed = rp->ev.seq + 1;
		return rp->status ? -1 : 1;
	}
	t = ptask_find(rp, rp->ev.tid);
	if (!t) {
		diverge(rp, NULL,
			"event for pid %d, which does not "
			"exist at this point of the replay",
			rp->ev.tid);
		return -1;
	}
	switch (rp->ev.kind) {
	case MRR_EV_SYSCALL:
		replay_syscall(rp, t);
		break;
	case MRR_EV_SIGNAL:
		replay_signal(rp, t);
		break;
	case MRR_EV_RDTSC:
		replay_rdtsc(rp, t);
		break;
	case MRR_EV_EXIT:
		replay_exit(rp, t);
		break;
	case MRR_EV_BUFFER:
		replay_buffer(rp, t);
		break;
	case MRR_EV_BACKTRACE:
		break;
	case MRR_EV_PREEMPT:
		replay_preempt(rp, t);
		break;
	case MRR_EV_SCHED:
		replay_sched(rp, t);
		break;
	default:
		mrr_err("trace %s: event %" PRIu64 " has unknown kind %u",
			rp->o->trace_dir, rp->ev.seq, rp->ev.kind);
		rp->status = MRR_EXIT_DATAERR;
	}
	remember(rp);
	rp->nreplayed = rp->ev.seq + 1;
	return rp->status ? -1 : 1;
}

int replay_finish(struct replayer *rp)
{
	if (!rp->status && rp->tasks) {
		enum mrr_trace_end end;
		const char *why = NULL;

		if (mrr_trace_committed(rp->r, &end, &why) &&
		    end == MRR_END_COMPLETE) {
			diverge(rp, rp->tasks,
				"the trace ended but pid %d is still running",
				rp->tasks->rec_tid);
		} else if (!rp->o->quiet) {
			fprintf(stderr,
				"mrr: replayed the %s recording up to its end "
				"(%s)\n",
				mrr_trace_committed(rp->r, &end, &why)
					? "stopped"
					: "salvaged",
				why ? why : "no more events");
		}
	}
	if (watchdog_fired() && !rp->status)
		rp->status = MRR_EXIT_SOFTWARE;
	return rp->status;
}

void replay_mem_written(struct replayer *rp, struct ptask *t, uint64_t addr,
			uint64_t len, uint64_t event)
{
	const struct replay_stop *w = rp->want;
	size_t i;

	(void)event;
	if (!w || !t || rp->mem_hit ||
	    !(t->rec_tid == w->tid || (w->pid && t->tgid == w->pid)))
		return;
	for (i = 0; i < w->nbps; i++) {
		const struct replay_bp *b = &w->bps[i];

		if (b->type != REPLAY_WATCH_W && b->type != REPLAY_WATCH_RW)
			continue;
		if (addr < b->addr + b->len && b->addr < addr + len) {
			rp->mem_hit = true;
			rp->mem_hit_addr = b->addr;
			rp->mem_hit_bp = (int)i;
			return;
		}
	}
}

int mrr_replay(const struct replay_opts *o)
{
	struct replayer rp;
	struct replay_stopped why;
	int err, status;

	err = replay_open(&rp, o);
	if (err)
		return err;
	rp.lazy_exit = true;
	err = watchdog_start(&rp, o->stall_timeout_s < 0 ? 0
				  : o->stall_timeout_s
					  ? (unsigned)o->stall_timeout_s
					  : MRR_STALL_TIMEOUT_DEFAULT);
	if (err)
		mrr_err("cannot start the replay watchdog: %s; a stuck "
			"replay will not be reported",
			strerror(-err));
	if (replay_run(&rp, NULL, &why) == 0)
		replay_finish(&rp);
	watchdog_stop();
	if (watchdog_fired() && !rp.status)
		rp.status = MRR_EXIT_SOFTWARE;
	status = rp.status;
	replay_close(&rp);
	replay_tmpdir_remove();
	replay_preempt_print_stats();
	replay_point_digest_print_stats();
	return status;
}
