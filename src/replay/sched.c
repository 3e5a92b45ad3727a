/* Thread scheduling at replay. The trace's event order is the schedule:
 * the recorder ran one task of an address space at a time, and each
 * MRR_EV_SCHED event marks where a task gave up the running slot, at the
 * entry of a syscall (FORMAT.md 7.8). Here that task is brought to that
 * entry and left stopped there (held); its own event for the call, later
 * in the trace, takes it from there (ptask_next_stop returns the held
 * stop). A task that blocked inside a buffered call is brought to the
 * traced call its wrapper makes at replay instead (sched_buffered). */
#include "core/events.h"
#include "replay/ptask.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <inttypes.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

/* MRR_SCHED_BUFFERED: at record the task blocked inside a buffered call
 * and let the others run; its records up to that call were loaded before
 * this event. Its wrapper finds no record for the call and makes it
 * traced: the task is left at that call's stop until its turn comes back
 * (ptask.h, sbuf_parked). The call the library blocked in at record may be
 * one of its own looks before the call (an fstat), so the number is not
 * checked: the records consumed to the last are. */
static void sched_buffered(struct replayer *rp, struct ptask *t, int status)
{
	const struct mrr_event *ev = &rp->ev;
	const char *was = mrr_syscall_name(ev->nr);

	if (!WIFSTOPPED(status) || (status >> 16) != PTRACE_EVENT_SECCOMP) {
		diverge(rp, t,
			"expected thread %d to run its buffered calls up to "
			"the one it blocked in (%s) and let another thread "
			"run, it stopped with status 0x%x",
			ev->tid, was ? was : "a syscall", status);
		return;
	}
	if (replay_sbuf_check_consumed(rp, t) < 0)
		return;
	t->sbuf_parked = true;
}

int replay_sbuf_retry(struct replayer *rp, struct ptask *t)
{
	struct user_regs_struct r;

	t->sbuf_parked = false;
	if (tracee_get_regs(&t->t, &r) < 0)
		goto fail;
	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)MRR_SYSCALLBUF_RETRY;
	if (tracee_set_regs(&t->t, &r) < 0)
		goto fail;
	if (rp->lazy_exit) {
		t->skip_exit = true;
		t->at_exit = true;
		return 0;
	}
	if (run_to_exit(rp, t) < 0 || tracee_get_regs(&t->t, &r) < 0)
		goto fail;
	r.rax = (uint64_t)MRR_SYSCALLBUF_RETRY;
	if (tracee_set_regs(&t->t, &r) == 0)
		return 0;
fail:
	diverge(rp, t, "cannot resume the buffered call it blocked in");
	return -1;
}

void replay_sched(struct replayer *rp, struct ptask *t)
{
	const struct mrr_event *ev = &rp->ev;
	const char *want = mrr_syscall_name(ev->nr);
	struct user_regs_struct regs;
	int status;

	if (ptask_next_stop(rp, t, &status) < 0)
		return;
	if (ev->result == MRR_SCHED_BUFFERED) {
		sched_buffered(rp, t, status);
		return;
	}
	if (!WIFSTOPPED(status) || (status >> 16) != PTRACE_EVENT_SECCOMP ||
	    tracee_get_regs(&t->t, &regs) < 0) {
		diverge(rp, t,
			"expected thread %d to enter %s and let another "
			"thread run, it stopped with status 0x%x",
			ev->tid, want ? want : "a syscall", status);
		return;
	}
	if ((int64_t)regs.orig_rax != ev->nr || regs.rip != ev->ip) {
		const char *got = mrr_syscall_name((long)regs.orig_rax);

		diverge(rp, t,
			"expected thread %d to enter %s at 0x%" PRIx64
			" and let another thread run, it called %s at 0x%llx",
			ev->tid, want ? want : "a syscall", ev->ip,
			got ? got : "an unknown syscall", regs.rip);
		return;
	}
	t->held = true;
	t->held_status = status;
}

bool replay_group_exit(struct replayer *rp, struct ptask *t)
{
	struct ptask *p;
	bool others = false;

	for (p = rp->tasks; p; p = p->next)
		if (p != t && p->tgid == t->tgid)
			others = true;
	if (!others)
		return false;
	for (p = rp->tasks; p; p = p->next)
		if (p->tgid == t->tgid)
			p->dying = true;
	/* the call that ends them all */
	if (ptrace(PTRACE_CONT, t->t.tid, 0, 0) == 0)
		t->stopped = false;
	return true;
}

/* Waits for one task's death. A task in a ptrace-stop is not resumed: the
 * SIGKILL of the group exit takes it out of the stop. */
static int wait_death(struct replayer *rp, struct ptask *t, int *status)
{
	t->held = false;
	for (;;) {
		if (tracee_wait(&t->t, status) < 0) {
			diverge(rp, t,
				"thread %d of pid %d vanished as its "
				"process ended",
				t->rec_tid, t->tgid);
			return -1;
		}
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return 0;
		/* a stop on its way out (PTRACE_EVENT_EXIT...) */
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	}
}

int replay_reap_dying(struct replayer *rp, pid_t tgid)
{
	struct ptask *p;

	for (p = rp->tasks; p; p = p->next) {
		if (p->tgid != tgid || !p->dying || p->dead)
			continue;
		if (wait_death(rp, p, &p->dead_status) < 0)
			return -1;
		p->dead = true;
	}
	return 0;
}

int replay_reap_thread(struct replayer *rp, struct ptask *t, int *status)
{
	struct ptask *p;

	if (t->dead) {
		*status = t->dead_status;
		return 0;
	}
	if (t->rec_tid == t->tgid) {
		for (p = rp->tasks; p; p = p->next) {
			if (p == t || p->tgid != t->tgid || p->dead)
				continue;
			if (wait_death(rp, p, &p->dead_status) < 0)
				return -1;
			p->dead = true;
		}
	}
	return wait_death(rp, t, status);
}
