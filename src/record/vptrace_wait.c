/* ptrace emulated for the recorded program: the tracer's waits
 * (vptrace.h). */
#include "record/vptrace.h"
#include "record/vptrace_int.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "record/rtask.h"
#include "record/signals.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sched.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

/* The threads of process tgid blocked in a real wait, which would not
 * see a virtual tracee's stops, are interrupted (PTRACE_INTERRUPT: the
 * call returns -ERESTARTSYS to mrr) and make their call again, unrecorded
 * (rec_vptrace_wait_exit). */
void vp_kick_waits(struct recorder *rec, pid_t tgid)
{
	struct rtask *y;

	for (y = rec->tasks; y; y = y->next) {
		if (y->tgid != tgid || !y->in_syscall ||
		    (y->nr != SYS_wait4 && y->nr != SYS_waitid) ||
		    (y->vw && (y->vw->kicked || y->vw->blocked)))
			continue;
		if (ptrace(PTRACE_INTERRUPT, y->t.tid, 0, 0) == 0)
			vp_vwait_of(y)->kicked = true;
	}
}

/* Which pids a wait of t names (wait4's pid argument, or waitid's). */
static bool wait_matches(struct rtask *t, pid_t tid, pid_t pgid)
{
	if (t->nr == SYS_wait4) {
		pid_t p = (pid_t)t->args[0];

		if (p == -1)
			return true;
		if (p > 0)
			return p == tid;
		if (p == 0)
			return pgid == getpgid(t->t.tid);
		return pgid == -p;
	}
	switch ((int)t->args[0]) {
	case P_ALL:
		return true;
	case P_PID:
		return (pid_t)t->args[1] == tid;
	case P_PGID:
		return (pid_t)t->args[1] ==
		       (t->args[1] ? pgid : getpgid(t->t.tid));
	}
	return false;
}

static uint64_t wait_options(const struct rtask *t)
{
	return t->nr == SYS_wait4 ? t->args[2] : t->args[3];
}

/* Answers t's wait with tid's status (a stop's, or an exit's). */
static void answer_wait(struct recorder *rec, struct rtask *t, pid_t tid,
			int status)
{
	struct capture c = {0};
	uint8_t ru[144] = {0};
	int64_t result = tid;

	if (t->nr == SYS_wait4) {
		if (t->args[1] &&
		    tracee_write_all(&t->t, t->args[1], &status, 4) < 0)
			result = -EFAULT;
		if (t->args[3] &&
		    tracee_write_all(&t->t, t->args[3], ru, sizeof(ru)) < 0)
			result = -EFAULT;
		if (result > 0) {
			capture_add(&c, t, t->args[1], 4);
			capture_add(&c, t, t->args[3], sizeof(ru));
		}
	} else {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		si.si_signo = SIGCHLD;
		si.si_pid = tid;
		si.si_uid = getuid();
		if (WIFSTOPPED(status)) {
			si.si_code = CLD_TRAPPED;
			si.si_status = (status >> 8) & 0xffff;
		} else if (WIFEXITED(status)) {
			si.si_code = CLD_EXITED;
			si.si_status = WEXITSTATUS(status);
		} else {
			si.si_code =
				WCOREDUMP(status) ? CLD_DUMPED : CLD_KILLED;
			si.si_status = WTERMSIG(status);
		}
		result = 0;
		if (t->args[2] &&
		    tracee_write_all(&t->t, t->args[2], &si, sizeof(si)) < 0)
			result = -EFAULT;
		if (t->args[4] &&
		    tracee_write_all(&t->t, t->args[4], ru, sizeof(ru)) < 0)
			result = -EFAULT;
		if (!result) {
			capture_add(&c, t, t->args[2], sizeof(si));
			capture_add(&c, t, t->args[4], sizeof(ru));
		}
	}
	rec_skip_syscall(rec, t, result, &c);
	free(c.data);
}

bool rec_vptrace_wait_entry(struct recorder *rec, struct rtask *t)
{
	struct rec_vwait *w = t->vw;
	uint64_t opt = wait_options(t);
	bool any = false;
	struct rtask *x;
	int i;

	for (x = rec->tasks; x; x = x->next) {
		if (!vp_traced_by(x, t) || x->exit_written ||
		    !wait_matches(t, x->t.tid, getpgid(x->t.tid)))
			continue;
		any = true;
		if (!x->vp->held || x->vp->reported)
			continue;
		if (!(t->nr == SYS_waitid && (opt & WNOWAIT)))
			x->vp->reported = true;
		answer_wait(rec, t, x->t.tid, x->vp->status);
		return true;
	}
	for (i = 0; w && i < w->nexits; i++) {
		if (!wait_matches(t, w->exits[i].tid, w->exits[i].pgid))
			continue;
		answer_wait(rec, t, w->exits[i].tid, w->exits[i].status);
		if (!(t->nr == SYS_waitid && (opt & WNOWAIT)))
			memmove(&w->exits[i], &w->exits[i + 1],
				(size_t)(--w->nexits - i) *
					sizeof(w->exits[0]));
		return true;
	}
	if (!any)
		return false;
	/* The call runs for real: it waits in the kernel for the real
	 * children, as natively, and a signal interrupts it; a virtual
	 * tracee's stop interrupts it too (vp_kick_waits), and it is made again
	 * to look. With no real child, it fails with ECHILD at once, and
	 * rec_vptrace_wait_exit makes it wait. */
	w = vp_vwait_of(t);
	w->forced = true;
	w->gen = vp_gen;
	w->saved_opt = opt;
	return false;
}

/* Whether t's wait (at its entry or exit) has a status to report. */
static bool reportable(struct recorder *rec, struct rtask *t)
{
	struct rtask *x;
	int i;

	for (x = rec->tasks; x; x = x->next)
		if (vp_traced_by(x, t) && !x->exit_written && x->vp->held &&
		    !x->vp->reported &&
		    wait_matches(t, x->t.tid, getpgid(x->t.tid)))
			return true;
	for (i = 0; t->vw && i < t->vw->nexits; i++)
		if (wait_matches(t, t->vw->exits[i].tid, t->vw->exits[i].pgid))
			return true;
	return false;
}

/* A tracee interrupted in a call for PTRACE_INTERRUPT: when the call was
 * cut short (-ERESTART*), it is set back to make the call again and held
 * there, at the stop, with nothing recorded. */
static bool interrupted_call(struct recorder *rec, struct rtask *t)
{
	struct user_regs_struct r;

	t->vp->kicked = false;
	if (tracee_get_regs(&t->t, &r) < 0 || (int64_t)r.rax < -516 ||
	    (int64_t)r.rax > -512)
		return false;
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (tracee_set_regs(&t->t, &r) < 0)
		return false;
	/* it stops at the call's entry, made again (rec_vptrace_entry) */
	t->vp->interrupt = true;
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}

bool rec_vptrace_wait_exit(struct recorder *rec, struct rtask *t)
{
	struct rec_vwait *w = t->vw;
	struct user_regs_struct r;
	int64_t result;
	bool any = false;
	struct rtask *x;

	if (t->vp && t->vp->kicked && interrupted_call(rec, t))
		return true;

	if (!w || (!w->forced && !w->kicked) ||
	    (t->nr != SYS_wait4 && t->nr != SYS_waitid))
		return false;
	if (tracee_get_regs(&t->t, &r) < 0)
		return false;
	if (w->kicked) {
		w->kicked = false;
		if ((int64_t)r.rax >= -514 && (int64_t)r.rax <= -512) {
			w->forced = false;
			w->gen = vp_gen - 1; /* it looks again at once */
			goto again;
		}
		if (!w->forced)
			return false; /* it had something to report anyway */
	}
	w->forced = false;
	result = (int64_t)r.rax;
	if (result != -ECHILD)
		return false; /* a real child's, a signal's or WNOHANG's */
	for (x = rec->tasks; x; x = x->next)
		if (vp_traced_by(x, t) && !x->exit_written &&
		    wait_matches(t, x->t.tid, getpgid(x->t.tid)))
			any = true;
	if (!any && !reportable(rec, t))
		return false;
	if (w->saved_opt & WNOHANG) {
		/* natively its tracees count: nothing yet, not ECHILD (and
		 * waitid clears the fields it reports) */
		static const uint8_t zero[28];

		r.rax = 0;
		if (tracee_set_regs(&t->t, &r) < 0)
			return false;
		if (t->nr == SYS_waitid && t->args[2] &&
		    tracee_write_all(&t->t, t->args[2], zero, sizeof(zero)) < 0)
			mrr_debug("vptrace: pid %d: cannot clear its siginfo",
				  t->t.tid);
		if (!reportable(rec, t))
			return false;
	}
	/* nothing to report: the call is made again once something changes */
again:
	r.rip -= 2;
	r.rax = r.orig_rax;
	if (tracee_set_regs(&t->t, &r) < 0)
		return false;
	if (w->gen != vp_gen || reportable(rec, t)) {
		/* a tracee stopped, or a task ended, while the call ran: it
		 * looks again at once */
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return true;
	}
	w->blocked = true;
	rec_sched_release(rec, t, "waits for its tracee");
	return true;
}
