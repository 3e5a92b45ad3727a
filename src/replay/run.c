/* replay_run: the replay loop with stop conditions (session.h). Between
 * events only the next event's task moves; to stop inside an event, that
 * task is run ahead to its event's stop with breakpoints in place, and the
 * stop it reaches is held for the event's handler (ptask->held). */
#include "replay/session.h"

#include "core/events.h"
#include "core/hwbp.h"
#include "core/log.h"
#include "core/owntrap.h"
#include "replay/ptask.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif

/* The breakpoints of want as they are in one task while it runs. */
struct armed {
	uint8_t saved[64];
	bool sw_in[64];
	int slot_bp[4]; /* debug register slot -> index in bps (-1: `to`) */
	int nslots;
	bool to_in; /* the `to` position's breakpoint is armed */
	uint8_t to_saved;
	uint64_t to_addr;
};

static bool sw_at(const struct replay_stop *w, uint64_t addr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w->bps[i].type == REPLAY_BP_SW && w->bps[i].addr == addr)
			return true;
	return false;
}

/* Whether w's `to` position lies in the span t runs now. */
static bool to_applies(const struct replayer *rp, const struct ptask *t,
		       const struct replay_stop *w)
{
	return w->to && w->to->tid == t->rec_tid &&
	       (t->rec_tid == w->tid || (w->pid && t->tgid == w->pid)) &&
	       w->to->event == rp->nreplayed && w->to->unit != REPLAY_AT_EVENT;
}

static void arm(struct replayer *rp, struct ptask *t,
		const struct replay_stop *w, bool with_sw, struct armed *a)
{
	static const uint8_t int3 = 0xcc;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < w->nbps && i < 64; i++) {
		const struct replay_bp *b = &w->bps[i];

		if (b->type == REPLAY_BP_SW) {
			/* one int3 per address, however many breakpoints */
			if (!with_sw || sw_at(w, b->addr, i) ||
			    tracee_read_all(&t->t, b->addr, &a->saved[i], 1) <
				    0 ||
			    tracee_write_all(&t->t, b->addr, &int3, 1) < 0)
				continue;
			a->sw_in[i] = true;
			continue;
		}
		if (a->nslots == 4 ||
		    hwbp_set(t->t.tid, a->nslots, b->addr,
			     b->type == REPLAY_BP_HW	 ? HWBP_EXEC
			     : b->type == REPLAY_WATCH_W ? HWBP_WRITE
							 : HWBP_RW,
			     b->type == REPLAY_BP_HW ? 1 : (int)b->len) < 0)
			continue;
		a->slot_bp[a->nslots++] = (int)i;
	}
	if (to_applies(rp, t, w) &&
	    !(with_sw && sw_at(w, w->to->regs.rip, w->nbps)) &&
	    tracee_read_all(&t->t, w->to->regs.rip, &a->to_saved, 1) == 0 &&
	    tracee_write_all(&t->t, w->to->regs.rip, &int3, 1) == 0) {
		a->to_in = true;
		a->to_addr = w->to->regs.rip;
	}
	if (a->nslots && hwbp_clear_dr6(t->t.tid) < 0)
		mrr_debug("pid %d: cannot clear DR6", t->t.tid);
}

static void disarm(struct ptask *t, const struct replay_stop *w,
		   struct armed *a)
{
	/* a task that died with its breakpoints in has no memory left */
	for (size_t i = 0; i < w->nbps && i < 64; i++)
		if (a->sw_in[i] && tracee_write_all(&t->t, w->bps[i].addr,
						    &a->saved[i], 1) < 0)
			mrr_debug("pid %d: breakpoint not removed", t->t.tid);
	if (a->to_in &&
	    tracee_write_all(&t->t, a->to_addr, &a->to_saved, 1) < 0)
		mrr_debug("pid %d: breakpoint not removed", t->t.tid);
	if (a->nslots && hwbp_clear_all(t->t.tid) < 0)
		mrr_debug("pid %d: debug registers not cleared", t->t.tid);
}

static bool regs_equal(const struct user_regs_struct *a,
		       const struct user_regs_struct *b)
{
	return a->rip == b->rip && a->rsp == b->rsp && a->rbp == b->rbp &&
	       a->rax == b->rax && a->rbx == b->rbx && a->rcx == b->rcx &&
	       a->rdx == b->rdx && a->rsi == b->rsi && a->rdi == b->rdi &&
	       a->r8 == b->r8 && a->r9 == b->r9 && a->r10 == b->r10 &&
	       a->r11 == b->r11 && a->r12 == b->r12 && a->r13 == b->r13 &&
	       a->r14 == b->r14 && a->r15 == b->r15;
}

static void count_progress(struct replayer *rp, struct ptask *t,
			   enum replay_unit unit)
{
	if (rp->progress_unit == REPLAY_AT_EVENT)
		rp->progress_unit = unit;
	rp->progress++;
	rp->progress_tid = t->rec_tid;
}

/* What stopped t (SIGTRAP, no ptrace event): 1 with *why filled when it is
 * one of ours, 0 when it is the program's own stop, 2 a pass at the `to`
 * address that is not the position, 3 a breakpoint's exception with its
 * cause lost (owntrap.h): its instruction has not run, resumed as is. */
static int classify_trap(struct replayer *rp, struct ptask *t,
			 const struct replay_stop *w, const struct armed *a,
			 bool stepping, struct replay_stopped *why)
{
	struct user_regs_struct regs;
	siginfo_t si;
	uint64_t dr6;

	if (ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) < 0 ||
	    tracee_get_regs(&t->t, &regs) < 0)
		return 0;
	why->tid = t->rec_tid;
	why->bp = -1;
	if (owntrap_lost(&si, t->t.tid, regs.rip))
		return 3;
	if (si.si_code == SI_KERNEL && regs.rip > 0) {
		uint64_t at = regs.rip - 1;
		bool ours = false;

		for (size_t i = 0; i < w->nbps && i < 64; i++)
			if (a->sw_in[i] && w->bps[i].addr == at) {
				ours = true;
				why->bp = (int)i;
			}
		if (a->to_in && a->to_addr == at)
			ours = true;
		/* the position sought, at a user breakpoint's address */
		bool at_to =
			(a->to_in && a->to_addr == at) ||
			(ours && to_applies(rp, t, w) && w->to->regs.rip == at);
		if (!ours)
			return 0;
		regs.rip = at;
		if (tracee_set_regs(&t->t, &regs) < 0)
			return 0;
		why->addr = at;
		if (at_to) {
			if (regs_equal(&regs, &w->to->regs) &&
			    (!w->to->stack_hash ||
			     replay_stack_hash(t, regs.rsp) ==
				     w->to->stack_hash)) {
				why->why = REPLAY_STOP_POS;
				count_progress(rp, t, REPLAY_HITS);
				return 1;
			}
			if (why->bp < 0)
				return 2; /* another pass there */
		}
		why->why = REPLAY_STOP_BREAKPOINT;
		count_progress(rp, t, REPLAY_HITS);
		return 1;
	}
	if (!a->nslots || hwbp_read_dr6(t->t.tid, &dr6) < 0 ||
	    hwbp_clear_dr6(t->t.tid) < 0)
		dr6 = 0;
	for (int s = 0; s < a->nslots; s++) {
		const struct replay_bp *b;

		if (!(dr6 & (1ull << s)))
			continue;
		b = &w->bps[a->slot_bp[s]];
		why->bp = a->slot_bp[s];
		why->addr = b->addr;
		why->why = b->type == REPLAY_BP_HW ? REPLAY_STOP_BREAKPOINT
						   : REPLAY_STOP_WATCH;
		count_progress(rp, t, REPLAY_HITS);
		return 1;
	}
	if (stepping && (si.si_code == TRAP_TRACE || (dr6 & 0x4000))) {
		why->why = REPLAY_STOP_STEP;
		count_progress(rp, t, REPLAY_STEPS);
		return 1;
	}
	return 0;
}

/* Runs t (the next event's task) towards its event. Returns 1 when it
 * stopped on one of want's conditions (why filled), 0 when it reached the
 * event's stop (held for the handler), -1 on error. */
static int run_ahead(struct replayer *rp, struct ptask *t,
		     const struct replay_stop *w, bool step,
		     struct replay_stopped *why)
{
	struct armed a;
	struct user_regs_struct regs;
	int status, k;

	/* stopped at one of the breakpoints by a hit: its instruction runs
	 * first, or the breakpoint would hit again at once */
	if (!step && rp->progress_unit == REPLAY_HITS && t->stopped &&
	    tracee_get_regs(&t->t, &regs) == 0 && sw_at(w, regs.rip, w->nbps)) {
		static const struct replay_stop nothing;

		arm(rp, t, &nothing, false, &a);
		k = ptask_advance(rp, t, PTRACE_SINGLESTEP, &status);
		if (k < 0)
			return -1;
		if (!(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
		      (status >> 16) == 0)) {
			t->held = true; /* the instruction was the event's */
			t->held_status = status;
			return 0;
		}
	}
	for (;;) {
		arm(rp, t, w, !step, &a);
		k = ptask_advance(rp, t, step ? PTRACE_SINGLESTEP : PTRACE_CONT,
				  &status);
		if (k < 0) {
			disarm(t, w, &a);
			return -1;
		}
		k = 0;
		if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
		    (status >> 16) == 0)
			k = classify_trap(rp, t, w, &a, step, why);
		disarm(t, w, &a);
		if (k == 1)
			return 1;
		if (k == 0)
			break;
		if (k == 3)
			continue;
		/* a pass at the `to` address that is not the position: its
		 * instruction runs before the breakpoint goes back in */
		if (ptask_advance(rp, t, PTRACE_SINGLESTEP, &status) < 0)
			return -1;
		if (!(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
		      (status >> 16) == 0))
			break;
	}
	t->held = true;
	t->held_status = status;
	return 0;
}

/* Whether the handler of the next event starts by running its task to the
 * event's stop (then replay_run may do that part ahead of it). */
static bool runs_to_event(const struct replayer *rp, const struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;

	switch (ev->kind) {
	case MRR_EV_SYSCALL:
	case MRR_EV_RDTSC:
	case MRR_EV_SCHED:
		return true;
	case MRR_EV_EXEC:
		return t != NULL;
	case MRR_EV_SIGNAL:
		return ev->extra_len >= sizeof(struct mrr_signal_extra) &&
		       ((const struct mrr_signal_extra *)ev->extra)->how !=
			       MRR_SIG_AT_SYSCALL &&
		       ((const struct mrr_signal_extra *)ev->extra)->how !=
			       MRR_SIG_AT_POINT;
	case MRR_EV_EXIT:
		return !(ev->nr == -1 && WIFSIGNALED((int)ev->result) &&
			 WTERMSIG((int)ev->result) == SIGKILL);
	}
	return false;
}

/* Whether t is w's: its tid, or a task of its process. */
static bool in_want(const struct ptask *t, const struct replay_stop *w)
{
	return t && w->tid &&
	       (t->rec_tid == w->tid || (w->pid && t->tgid == w->pid));
}

/* Whether t's exit ends its process: no other task of it is left. */
static bool last_of_process(const struct replayer *rp, const struct ptask *t)
{
	for (const struct ptask *p = rp->tasks; p; p = p->next)
		if (p != t && p->tgid == t->tgid)
			return false;
	return true;
}

int replay_run(struct replayer *rp, const struct replay_stop *want,
	       struct replay_stopped *why)
{
	static const struct replay_stop nothing;
	const struct replay_stop *w = want ? want : &nothing;
	bool stepped = false;
	int k;

	memset(why, 0, sizeof(*why));
	why->bp = -1;
	rp->want = want;
	rp->mem_hit = false;
	for (;;) {
		struct ptask *t;
		bool ours, mine;
		pid_t moved;

		k = replay_peek(rp);
		if (k < 0)
			goto out_error;
		if (k == 0) {
			why->why = REPLAY_STOP_END;
			break;
		}
		if (w->before_event && rp->ev.seq >= w->before_event &&
		    rp->progress_unit == REPLAY_AT_EVENT) {
			why->why = REPLAY_STOP_EVENT;
			break;
		}
		if (w->to && w->to->unit == REPLAY_AT_EVENT &&
		    rp->ev.seq >= w->to->event &&
		    rp->progress_unit == REPLAY_AT_EVENT) {
			why->why = REPLAY_STOP_POS;
			break;
		}
		t = ptask_find(rp, rp->ev.tid);
		ours = t && w->tid && t->rec_tid == w->tid;
		mine = in_want(t, w); /* breakpoints apply to it */
		if (mine && !t->held && runs_to_event(rp, t) &&
		    (w->nbps || (ours && w->step && !stepped) ||
		     (w->to && w->to->tid == t->rec_tid &&
		      w->to->event == rp->nreplayed))) {
			k = run_ahead(rp, t, w, ours && w->step && !stepped,
				      why);
			if (k < 0)
				goto out_error;
			if (k > 0)
				break;
		}
		if (mine && w->report_exit && rp->ev.kind == MRR_EV_EXIT &&
		    rp->exit_reported != rp->ev.seq + 1 &&
		    (!w->pid || last_of_process(rp, t))) {
			rp->exit_reported = rp->ev.seq + 1;
			why->why = REPLAY_STOP_EXIT;
			why->tid = t->rec_tid;
			why->exit_status = (int)rp->ev.result;
			rp->last_exit_status = why->exit_status;
			break;
		}
		if (ours && w->step)
			stepped = true;
		moved = t ? t->rec_tid : w->tid;
		k = replay_step(rp);
		if (k < 0)
			goto out_error;
		if (rp->mem_hit) {
			why->why = REPLAY_STOP_WATCH;
			why->tid = moved;
			why->syscall = true;
			why->event = rp->ev.seq;
			why->addr = rp->mem_hit_addr;
			why->bp = rp->mem_hit_bp;
			break;
		}
		if (mine && w->report_exit && rp->ev.kind == MRR_EV_EXEC) {
			why->why = REPLAY_STOP_EXEC;
			why->tid = moved;
			break;
		}
		if (ours && stepped) {
			why->why = REPLAY_STOP_STEP;
			why->tid = w->tid;
			break;
		}
	}
	rp->want = NULL;
	return 0;
out_error:
	rp->want = NULL;
	why->why = REPLAY_STOP_ERROR;
	return -1;
}

int replay_hold(struct replayer *rp, const struct replay_stop *want,
		struct replay_stopped *why)
{
	static const struct replay_stop nothing;
	struct replay_stopped ignored;
	struct ptask *t;
	int k = replay_peek(rp);

	if (k <= 0)
		return k;
	t = ptask_find(rp, rp->ev.tid);
	if (!t || t->held || !runs_to_event(rp, t))
		return t && t->held ? 1 : 0;
	if (want && !in_want(t, want))
		want = NULL;
	memset(why ? why : &ignored, 0, sizeof(ignored));
	k = run_ahead(rp, t, want ? want : &nothing, false,
		      why ? why : &ignored);
	if (k < 0)
		return -1;
	return k > 0 ? 2 : 1;
}

struct ptask *replay_held_task(struct replayer *rp)
{
	struct ptask *t;

	if (!rp->have_next)
		return NULL;
	t = ptask_find(rp, rp->ev.tid);
	return t && t->held ? t : NULL;
}
