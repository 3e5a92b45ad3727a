/* Job control between recorded processes. mrr attaches with PTRACE_SEIZE,
 * so a task that takes a stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU)
 * really stops: its group-stop is reported as PTRACE_EVENT_STOP, and mrr
 * leaves it stopped with PTRACE_LISTEN. Its parent's waitpid(WUNTRACED)
 * and waitid(WSTOPPED) see the stop, and a SIGCONT from anywhere wakes it
 * (the kernel reports PTRACE_EVENT_STOP again, now with SIGTRAP), after
 * which mrr lets it run. The parent's wait results are recorded like any
 * other; at replay they come from the trace and the child is never
 * stopped, since nothing it does depends on it, except a syscall the stop
 * interrupted: that one is recorded as interrupted by the signal, and the
 * replay delivers the stop signal there so that the kernel restarts it
 * the same way (the replayer resumes the group-stop at once). */
#include "record/signals.h"

#include "core/events.h"
#include "core/log.h"
#include "record/rtask.h"

#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PTRACE_LISTEN
#define PTRACE_LISTEN 0x4208
#endif

bool rec_is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

void rec_stop_signal(struct recorder *rec, struct rtask *t,
		     const struct user_regs_struct *regs, const siginfo_t *si,
		     bool at_exit)
{
	/* The terminal's own job control (Ctrl-Z, a background read)
	 * signals mrr's whole foreground group, mrr included: by the time
	 * mrr passes the signal on, the shell's SIGCONT may have come and
	 * gone, and the program would stay stopped. Such stops are dropped,
	 * as before job control was recorded. */
	if (si->si_code == SI_KERNEL) {
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	/* The stop itself changes nothing the program sees; a syscall it
	 * interrupts is restarted, which the replay must repeat. */
	if (at_exit && t->last_result <= -512 && t->last_result >= -516)
		rec_write_signal(rec, t, regs, si, MRR_SIG_AT_SYSCALL);
	mrr_debug("pid %d: stopped by signal %d", t->t.tid, si->si_signo);
	ptrace(PTRACE_CONT, t->t.tid, 0, si->si_signo);
}

void rec_group_stop(struct recorder *rec, struct rtask *t, int sig)
{
	t->job_stopped = false;
	if (rec_is_stop_signal(sig)) {
		/* stopped (for its parent too) until a SIGCONT; its other
		 * threads must each run to join the stop */
		if (ptrace(PTRACE_LISTEN, t->t.tid, 0, 0) == 0 ||
		    errno == ESRCH) {
			t->job_stopped = true;
			rec_sched_release(rec, t, "is stopped (group-stop)");
			return;
		}
		mrr_debug("pid %d: PTRACE_LISTEN failed: %s", t->t.tid,
			  strerror(errno));
	}
	/* SIGCONT ended the group-stop (or another PTRACE_EVENT_STOP) */
	if (ptrace(PTRACE_CONT, t->t.tid, 0, 0) < 0 && errno != ESRCH)
		mrr_debug("pid %d: cannot resume after a group-stop: %s",
			  t->t.tid, strerror(errno));
}

void rec_jobctl_orphans(struct recorder *rec)
{
	struct rtask *t;

	if (!rec->first_exited || !rec->tasks)
		return;
	for (t = rec->tasks; t; t = t->next)
		if (!t->job_stopped)
			return;
	for (t = rec->tasks; t; t = t->next) {
		mrr_debug("pid %d: stopped, and nothing left to continue it: "
			  "SIGHUP and SIGCONT, as to an orphaned process group",
			  t->t.tid);
		syscall(SYS_tgkill, t->tgid, t->t.tid, SIGHUP);
		syscall(SYS_tgkill, t->tgid, t->t.tid, SIGCONT);
		t->job_stopped = false;
	}
}
