/* Without performance counters a replay cannot stop a task at an arbitrary
 * instruction. So mrr records a signal from outside only where the replay
 * can deliver it again: right after the task's last syscall (no user code
 * ran since), or at a point in user code that the replay finds again
 * (preempt.c). A signal that arrives where neither works (inside mrr's own
 * code) is held back and re-sent at the task's next syscall exit. Faults
 * are synchronous and recur by themselves at replay. */
#include "record/signals.h"
#include "record/spin.h"

#include "core/events.h"
#include "core/exitcodes.h"
#include "core/proc.h"
#include "core/insn.h"
#include "core/log.h"
#include "core/owntrap.h"
#include "core/tsc_patch.h"
#include "record/preempt.h"
#include "record/rtask.h"
#include "record/vptrace.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include <x86intrin.h>

enum disposition { DISP_CAUGHT, DISP_IGNORED, DISP_FATAL, DISP_STOP };

/* What sig does to tid now. *pending (when not NULL) tells whether any
 * signal is pending for tid, its own or its process's, besides the one
 * being delivered (which the kernel has dequeued at its stop). */
static enum disposition disposition_pending(pid_t tid, int sig, bool *pending)
{
	unsigned long long ign, cgt, pnd, bit = 1ull << (sig - 1);
	struct proc_sigmasks m;

	if (proc_sigmasks(tid, &m) < 0)
		m.pending = ~0ull; /* unknown: assume one */
	ign = m.ignored;
	cgt = m.caught;
	pnd = m.pending;
	if (pending)
		*pending = pnd != 0;
	if (cgt & bit)
		return DISP_CAUGHT;
	if (ign & bit)
		return DISP_IGNORED;
	switch (sig) {
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
	case SIGCONT:
		return DISP_IGNORED;
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU:
		return DISP_STOP;
	}
	return DISP_FATAL;
}

static enum disposition disposition(pid_t tid, int sig)
{
	return disposition_pending(tid, sig, NULL);
}

static bool is_sync(const siginfo_t *si)
{
	switch (si->si_signo) {
	case SIGSEGV:
	case SIGBUS:
	case SIGFPE:
	case SIGILL:
	case SIGTRAP:
	case SIGSYS:
		return si->si_code > 0 || si->si_code == SI_KERNEL;
	}
	return false;
}

static bool same_regs(const struct user_regs_struct *a,
		      const struct user_regs_struct *b)
{
	return a->rip == b->rip && a->rsp == b->rsp && a->rax == b->rax &&
	       a->rbx == b->rbx && a->rcx == b->rcx && a->rdx == b->rdx &&
	       a->rsi == b->rsi && a->rdi == b->rdi && a->rbp == b->rbp &&
	       a->r8 == b->r8 && a->r9 == b->r9 && a->r10 == b->r10 &&
	       a->r11 == b->r11 && a->r12 == b->r12 && a->r13 == b->r13 &&
	       a->r14 == b->r14 && a->r15 == b->r15;
}

void rec_write_signal(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, const siginfo_t *si,
		      uint32_t how)
{
	struct mrr_signal_extra x = {0};
	struct mrr_event ev = {0};
	struct capture c = {0};

	x.how = how;
	memcpy(x.siginfo, si, sizeof(x.siginfo));
	capture_extra(&c, &x, sizeof(x));
	ev.kind = MRR_EV_SIGNAL;
	ev.tid = t->t.tid;
	ev.ip = regs->rip;
	ev.nr = si->si_signo;
	rec_write_event(rec, t, &ev, &c);
	free(c.extra);
}

/* Whether sig is blocked or ignored in tid (/proc/PID/status). */
bool rec_sig_blocked_or_ignored(pid_t tid, int sig)
{
	struct proc_sigmasks m;

	if (proc_sigmasks(tid, &m) < 0)
		return false;
	return ((m.blocked | m.ignored) >> (sig - 1)) & 1;
}

/* The program itself asked for PR_TSC_SIGSEGV (t->virt.tsc) and ran rdtsc:
 * natively the kernel kills it or runs its handler with SIGSEGV. In trap
 * mode that SIGSEGV is the kernel's own: returns false, and the caller
 * records and delivers it as a synchronous signal (it recurs by itself at
 * replay). In rewrite mode (rewritten, the site is ud2 and the fault is a
 * SIGILL) the SIGILL becomes the SIGSEGV the kernel would have sent, when
 * rdtsc traps on this machine at all; where PR_SET_TSC does nothing
 * (tsc_trap_works), natively the rdtsc just runs, and so it is emulated
 * (returns false with *emulate set). */
static bool tsc_fault(struct recorder *rec, struct rtask *t,
		      const struct user_regs_struct *regs, bool rewritten,
		      bool *emulate)
{
	static int traps = -1;
	siginfo_t si;

	*emulate = false;
	if (!rewritten)
		return false;
	if (traps < 0)
		traps = tsc_trap_works();
	if (!traps) {
		*emulate = true;
		return false;
	}
	if (rec_sig_blocked_or_ignored(t->t.tid, SIGSEGV)) {
		/* the kernel would force it (unblock, SIG_DFL) and kill the
		 * task; an injected signal is queued or ignored instead */
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d executed rdtsc at 0x%llx after "
			 "prctl(PR_SET_TSC, PR_TSC_SIGSEGV) with SIGSEGV "
			 "blocked or ignored, at event %llu; natively the "
			 "kernel kills it with SIGSEGV, which mrr cannot "
			 "reproduce where it rewrites rdtsc "
			 "(MRR_TSC_MODE=rewrite)",
			 t->t.tid, regs->rip,
			 (unsigned long long)mrr_trace_writer_events(rec->w));
		return true;
	}
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSEGV;
	si.si_code = SI_KERNEL;
	rec_write_signal(rec, t, regs, &si, MRR_SIG_SYNC);
	t->have_exit_regs = false;
	ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, &si);
	ptrace(PTRACE_CONT, t->t.tid, 0, SIGSEGV);
	return true;
}

/* rdtsc/rdtscp fault under PR_TSC_SIGSEGV: emulate it and record the value
 * (see tsc_fault for a program that asked for the fault itself). */
enum tsc_outcome {
	TSC_NOT,      /* not an rdtsc to emulate: an ordinary signal */
	TSC_EMULATED, /* its value is recorded and set: resume without it */
	TSC_RESUMED,  /* handled, and the task resumed (or the recording
			 stops) */
};

static enum tsc_outcome try_rdtsc(struct recorder *rec, struct rtask *t,
				  struct user_regs_struct *regs)
{
	uint8_t code[16];
	unsigned len = 0, aux = 0;
	enum mrr_tsc_insn kind;
	struct mrr_event ev = {0};
	struct capture c = {0};
	uint64_t tsc;
	ssize_t n;

	n = tracee_read(&t->t, regs->rip, code, sizeof(code));
	if (n <= 0)
		return TSC_NOT;
	if (n >= 2 && code[0] == 0x0f && code[1] == 0x0b) /* rewritten */
		kind = (enum mrr_tsc_insn)tsc_patched_insn(t->t.tid, regs->rip,
							   &len);
	else
		kind = mrr_decode_tsc(code, (size_t)n, regs->rip, &len);
	if (kind == MRR_INSN_OTHER)
		return TSC_NOT;
	if (t->virt.tsc == PR_TSC_SIGSEGV) {
		bool emulate;

		if (tsc_fault(rec, t, regs, code[0] == 0x0f && code[1] == 0x0b,
			      &emulate))
			return TSC_RESUMED;
		if (!emulate)
			return TSC_NOT;
	}
	if (kind == MRR_INSN_RDTSCP)
		tsc = __rdtscp(&aux);
	else
		tsc = __rdtsc();
	ev.kind = MRR_EV_RDTSC;
	ev.tid = t->t.tid;
	ev.ip = regs->rip;
	ev.nr = kind == MRR_INSN_RDTSCP;
	ev.args[0] = tsc;
	ev.args[1] = aux;
	ev.args[2] = len;
	rec_write_event(rec, t, &ev, &c);
	regs->rax = (uint32_t)tsc;
	regs->rdx = tsc >> 32;
	if (kind == MRR_INSN_RDTSCP)
		regs->rcx = aux;
	regs->rip += len;
	if (tracee_set_regs(&t->t, regs) < 0)
		return TSC_NOT;
	t->have_exit_regs = false;
	return TSC_EMULATED;
}

/* At the stop that PTRACE_SINGLESTEP into a handler gives, on the handler's
 * first instruction: no user code has run since the signal was recorded, so
 * a signal delivered now nests at the same point, and the replay can
 * deliver it there too. The next held signal, if any, is re-sent now.
 * Returns true when this was that stop (t resumed). */
static bool at_handler_entry(struct rtask *t,
			     const struct user_regs_struct *regs)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) < 0 ||
	    si.si_code != SIGTRAP)
		return false;
	t->exit_regs = *regs;
	t->have_exit_regs = true;
	t->last_result = 0;
	if (t->nqueued > 0 && !t->injecting) {
		t->injecting = true;
		t->injecting_info = t->queued[0];
		memmove(t->queued, t->queued + 1,
			--t->nqueued * sizeof(t->queued[0]));
		syscall(SYS_tgkill, t->t.tid, t->t.tid,
			t->injecting_info.si_signo);
	}
	ptrace(PTRACE_CONT, t->t.tid, 0, 0);
	return true;
}

void rec_signal_stop(struct recorder *rec, struct rtask *t, int sig)
{
	struct user_regs_struct regs;
	siginfo_t si;
	bool at_exit, async;
	enum disposition disp;
	enum tsc_outcome tsc;

	if (ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) < 0 ||
	    tracee_get_regs(&t->t, &regs) < 0) {
		ptrace(PTRACE_CONT, t->t.tid, 0, sig);
		return;
	}
	if (!t->started) {
		ptrace(PTRACE_CONT, t->t.tid, 0, sig);
		return;
	}
	if (sig == SIGTRAP && owntrap_lost(&si, t->t.tid, regs.rip)) {
		/* a breakpoint of mrr's whose cause the kernel lost, before
		 * its instruction ran: it hits again (owntrap.h) */
		mrr_debug("pid %d: SIGTRAP at 0x%llx, a breakpoint of mrr's: "
			  "swallowed",
			  t->t.tid, (unsigned long long)regs.rip);
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	if (sig == SIGCHLD)
		rec_vptrace_sigchld(t, &si);
	if (t->entering_handler) {
		t->entering_handler = false;
		if (sig == SIGTRAP && at_handler_entry(t, &regs))
			return;
	}
	/* before the flush: a stop of mrr's that records nothing must not
	 * flush (a flush the replay cannot place before the task moves) */
	if (rec_spin_gate_stop(rec, t, &si, &regs) ||
	    rec_preempt_own_stop(rec, t, &si, &regs))
		return;
	at_exit = t->have_exit_regs && same_regs(&regs, &t->exit_regs);
	/* A flush goes into the trace only right before an event of the task:
	 * the replay loads it while the task stands after its previous event,
	 * and a second flush before the task moves again would replace the
	 * first's records before the program made them. An asynchronous signal
	 * in user code that the program ignores (a SIGCHLD with the default
	 * action) records nothing; one it catches is held for an anchor's
	 * next execution, or recorded at a point (write_point flushes first),
	 * or held until the task's next traced call: none of them flushes
	 * here. (A flush while the library was between its look at hdr.used
	 * and its record, at an untraced fstat of a read, also went wrong:
	 * the record went in at the old offset, and the next flush had the
	 * first's records again.) */
	async = !at_exit && !is_sync(&si) && !t->vp &&
		!(t->injecting && sig == t->injecting_info.si_signo);
	disp = async ? disposition(t->t.tid, sig) : DISP_FATAL;
	if (async && disp == DISP_CAUGHT && !t->deferred &&
	    rec_preempt_hold(rec, t, &si, &regs))
		return;
	/* a task with a virtual tracer stops for any signal: one in user
	 * code is held for an anchor's next execution the same way */
	if (t->vp && !at_exit && !is_sync(&si) && !t->deferred &&
	    sig != SIGKILL &&
	    !(t->injecting && sig == t->injecting_info.si_signo) &&
	    rec_preempt_hold(rec, t, &si, &regs))
		return;
	if (async && disp == DISP_IGNORED) {
		rec_signal_deliver(rec, t, sig, &si, &regs, at_exit);
		return;
	}
	if (!(async && disp == DISP_CAUGHT))
		rec_sbuf_flush(rec, t);
	if (((sig == SIGSEGV && si.si_code == SI_KERNEL) ||
	     (sig == SIGILL && si.si_code == ILL_ILLOPN)) &&
	    (tsc = try_rdtsc(rec, t, &regs)) != TSC_NOT) {
		if (tsc == TSC_EMULATED)
			ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	if (t->injecting && sig == t->injecting_info.si_signo) {
		/* our re-sent signal: give it back its original siginfo */
		si = t->injecting_info;
		t->injecting = false;
		ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, &si);
	}
	if (t->vp && rec_vptrace_signal(rec, t, &si, &regs, at_exit))
		return; /* its tracer sees it first */
	rec_signal_deliver(rec, t, sig, &si, &regs, at_exit);
}

void rec_signal_deliver(struct recorder *rec, struct rtask *t, int sig,
			const siginfo_t *sip,
			const struct user_regs_struct *regsp, bool at_exit)
{
	struct user_regs_struct regs = *regsp;
	siginfo_t si = *sip;
	bool pending = true;

	/* a dispatched call's SIGSYS does not come back by itself at
	 * replay: it is delivered at the call's exit (sud.c) */
	if (is_sync(&si) && !rec_sud_signal(&si)) {
		if (rec_host_fault(rec, t, &si))
			return; /* a SIGBUS the replay would not get */
		rec_write_signal(rec, t, &regs, &si, MRR_SIG_SYNC);
		t->have_exit_regs = false;
		ptrace(PTRACE_CONT, t->t.tid, 0, sig);
		return;
	}
	switch (disposition_pending(t->t.tid, sig, &pending)) {
	case DISP_STOP:
		rec_stop_signal(rec, t, &regs, &si, at_exit);
		return;
	case DISP_IGNORED:
		/* Invisible to the program, except that it restarts an
		 * interrupted syscall: only that case needs replaying. */
		if (at_exit && t->last_result <= -512 &&
		    t->last_result >= -516) {
			rec_write_signal(rec, t, &regs, &si,
					 MRR_SIG_AT_SYSCALL);
			ptrace(PTRACE_CONT, t->t.tid, 0, sig);
		} else {
			ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		}
		return;
	case DISP_FATAL:
		rec_write_signal(rec, t, &regs, &si,
				 at_exit ? MRR_SIG_AT_SYSCALL : MRR_SIG_FATAL);
		ptrace(PTRACE_CONT, t->t.tid, 0, sig);
		return;
	case DISP_CAUGHT:
		if (at_exit) {
			rec_write_signal(rec, t, &regs, &si,
					 MRR_SIG_AT_SYSCALL);
			t->have_exit_regs = false;
			/* stop again at the handler's entry when a signal is
			 * pending or held: it is delivered there before any
			 * user code runs. With none, the stop is saved (one of
			 * the 5 of a tkill-handler-sigreturn round): a signal
			 * that comes later finds the task in user code, as
			 * any asynchronous one does. */
			if (!pending && t->nqueued == 0 && !t->deferred &&
			    !t->injecting) {
				ptrace(PTRACE_CONT, t->t.tid, 0, sig);
				return;
			}
			t->entering_handler = true;
			ptrace(PTRACE_SINGLESTEP, t->t.tid, 0, sig);
			return;
		}
		/* In user code: delivered at a point the replay finds
		 * again (preempt.c), or else after the next syscall. */
		if (!t->deferred && rec_preempt_signal(rec, t, &si, &regs))
			return;
		if (t->deferred) {
			/* held until the one before it is in its handler */
			if (t->nqueued <
			    (int)(sizeof(t->queued) / sizeof(t->queued[0])))
				t->queued[t->nqueued++] = si;
			else
				mrr_debug("pid %d: signal %d dropped: %d "
					  "signals are held",
					  t->t.tid, sig, t->nqueued + 1);
		} else {
			t->deferred = true;
			t->deferred_info = si;
			rec_sbuf_trace_next(t);
		}
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
}

/* Whether t's call is a tkill or tgkill of itself with a signal it does
 * not block, and mrr holds no signal of its own for it: the kernel then
 * stops it for the signal's delivery at the call's exit, before any user
 * code, with the registers the exit stop would show. That stop can stand
 * for the exit one (one ptrace stop fewer a self-signal: LTP signal06
 * makes 150,000). A traced task's ignored signals are queued and stop it
 * too. */
bool rec_self_signal(struct rtask *t)
{
	uint64_t sig, blocked;

	if (t->nr == SYS_tkill && t->args[0] == (uint64_t)t->t.tid)
		sig = t->args[1];
	else if (t->nr == SYS_tgkill && t->args[0] == (uint64_t)t->tgid &&
		 t->args[1] == (uint64_t)t->t.tid)
		sig = t->args[2];
	else
		return false;
	if (sig < 1 || sig > 64 || sig == SIGKILL || sig == SIGSTOP ||
	    rec_vptrace_wants_exit(t) || t->deferred || t->injecting ||
	    t->nqueued > 0 || t->has_held_stop || t->exiting)
		return false;
	if (ptrace(PTRACE_GETSIGMASK, t->t.tid, sizeof(blocked), &blocked) < 0)
		return false;
	return !(blocked & (1ull << (sig - 1)));
}

bool rec_exit_at_signal(struct recorder *rec, struct rtask *t, int status)
{
	int event = status >> 16;

	t->exit_at_signal = false;
	if (!WIFSTOPPED(status))
		return true; /* it died in the call */
	if ((event == 0 && WSTOPSIG(status) != (SIGTRAP | 0x80)) ||
	    event == PTRACE_EVENT_STOP) {
		t->in_syscall = false;
		rec_syscall_exit(rec, t);
		return true;
	}
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d: its %s of itself returned without the signal's "
		 "delivery at event %llu, so mrr missed its result; the "
		 "recording stops here",
		 t->t.tid, t->nr == SYS_tkill ? "tkill" : "tgkill",
		 (unsigned long long)mrr_trace_writer_events(rec->w));
	return false;
}
