/* ptrace emulated for the recorded program (vptrace.h): the tracee's
 * stops. vptrace_req.c answers the tracer's requests, vptrace_wait.c its
 * waits.
 *
 * Where a tracee stops for its virtual tracer, mrr leaves it in its own
 * real ptrace-stop and queues a wait status. Stops are placed only where
 * the replay's tracee can stand at the same state: right after one of its
 * events (a syscall's exit, a signal's delivery point after a syscall, an
 * exec), at a syscall's entry, or at a fault. A tracer's write into its
 * tracee (PTRACE_POKEDATA) is allowed after an event, where the replay,
 * which has run no user code of the tracee since that event either,
 * applies the same write when it replays the tracer's call (the call's
 * arguments carry all of it), and at a syscall's entry, which an
 * MRR_EV_SCHED event then marks for the replay. */
#include "record/vptrace.h"
#include "record/vptrace_int.h"

#include "core/events.h"
#include "core/exitcodes.h"
#include "core/proc.h"
#include "core/log.h"
#include "record/preempt.h"
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

uint64_t vp_ev_count(struct recorder *rec)
{
	return mrr_trace_writer_events(rec->w);
}

const char *vp_req_name(long req)
{
	static char buf[32];

	switch (req) {
	case PTRACE_TRACEME:
		return "PTRACE_TRACEME";
	case PTRACE_PEEKTEXT:
		return "PTRACE_PEEKTEXT";
	case PTRACE_PEEKDATA:
		return "PTRACE_PEEKDATA";
	case PTRACE_PEEKUSER:
		return "PTRACE_PEEKUSER";
	case PTRACE_POKETEXT:
		return "PTRACE_POKETEXT";
	case PTRACE_POKEDATA:
		return "PTRACE_POKEDATA";
	case PTRACE_POKEUSER:
		return "PTRACE_POKEUSER";
	case PTRACE_CONT:
		return "PTRACE_CONT";
	case PTRACE_KILL:
		return "PTRACE_KILL";
	case PTRACE_SINGLESTEP:
		return "PTRACE_SINGLESTEP";
	case PTRACE_GETREGS:
		return "PTRACE_GETREGS";
	case PTRACE_SETREGS:
		return "PTRACE_SETREGS";
	case PTRACE_GETFPREGS:
		return "PTRACE_GETFPREGS";
	case PTRACE_SETFPREGS:
		return "PTRACE_SETFPREGS";
	case PTRACE_ATTACH:
		return "PTRACE_ATTACH";
	case PTRACE_DETACH:
		return "PTRACE_DETACH";
	case PTRACE_SYSCALL:
		return "PTRACE_SYSCALL";
	case PTRACE_SETOPTIONS:
		return "PTRACE_SETOPTIONS";
	case PTRACE_GETEVENTMSG:
		return "PTRACE_GETEVENTMSG";
	case PTRACE_GETSIGINFO:
		return "PTRACE_GETSIGINFO";
	case PTRACE_SETSIGINFO:
		return "PTRACE_SETSIGINFO";
	case PTRACE_GETREGSET:
		return "PTRACE_GETREGSET";
	case PTRACE_SETREGSET:
		return "PTRACE_SETREGSET";
	case PTRACE_SEIZE:
		return "PTRACE_SEIZE";
	case PTRACE_INTERRUPT:
		return "PTRACE_INTERRUPT";
	case PTRACE_LISTEN:
		return "PTRACE_LISTEN";
	case PTRACE_PEEKSIGINFO:
		return "PTRACE_PEEKSIGINFO";
	case PTRACE_GETSIGMASK:
		return "PTRACE_GETSIGMASK";
	case PTRACE_SETSIGMASK:
		return "PTRACE_SETSIGMASK";
	case PTRACE_SECCOMP_GET_FILTER:
		return "PTRACE_SECCOMP_GET_FILTER";
	case VP_GET_SYSCALL_INFO:
		return "PTRACE_GET_SYSCALL_INFO";
	case PTRACE_SYSEMU:
		return "PTRACE_SYSEMU";
	case PTRACE_SYSEMU_SINGLESTEP:
		return "PTRACE_SYSEMU_SINGLESTEP";
	case PTRACE_ARCH_PRCTL:
		return "PTRACE_ARCH_PRCTL";
	}
	snprintf(buf, sizeof(buf), "request 0x%lx", req);
	return buf;
}

void vp_refuse(struct recorder *rec, struct rtask *t, const char *what)
{
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d called ptrace(%s) at event %llu; %s, so the "
		 "recording stops here",
		 t->t.tid, vp_req_name((long)t->args[0]),
		 (unsigned long long)vp_ev_count(rec), what);
}

struct rtask *vp_task_of(struct recorder *rec, pid_t tid)
{
	struct rtask *x;

	for (x = rec->tasks; x; x = x->next)
		if (x->t.tid == tid && !x->exit_written)
			return x;
	return NULL;
}

struct rec_vwait *vp_vwait_of(struct rtask *t)
{
	if (!t->vw)
		t->vw = calloc(1, sizeof(*t->vw));
	if (!t->vw)
		mrr_fatal("out of memory");
	return t->vw;
}

/* The tracer's call is answered: result, and the bytes of len at addr
 * written into it (recorded as the call's memory). */
void vp_answer(struct recorder *rec, struct rtask *t, int64_t result,
	       uint64_t addr, const void *data, size_t len)
{
	struct capture c = {0};

	if (len && result >= 0) {
		if (!addr || tracee_write_all(&t->t, addr, data, len) < 0)
			result = -EFAULT;
		else
			capture_add(&c, t, addr, len);
	}
	rec_skip_syscall(rec, t, result, &c);
	free(c.data);
}

unsigned long vp_gen;

/* Wakes the tracers held in a wait: they make their call again. */
void vp_wake_waiters(struct recorder *rec)
{
	struct rtask *x;

	vp_gen++;
	for (x = rec->tasks; x; x = x->next) {
		if (!x->vw || !x->vw->blocked)
			continue;
		x->vw->blocked = false;
		if (ptrace(PTRACE_CONT, x->t.tid, 0, 0) < 0 && errno != ESRCH)
			mrr_debug("vptrace: cannot wake pid %d: %s", x->t.tid,
				  strerror(errno));
	}
}

/* The SIGCHLD a tracer gets when a tracee stops (or a tracee that is not
 * its child ends) is sent by mrr, so it arrives from mrr's pid; at its
 * delivery stop the siginfo the kernel would have made takes its place
 * (rec_vptrace_sigchld). One per tracer process at a time: more would
 * merge into one natively as well. */
static struct vp_chld {
	pid_t tgid;
	siginfo_t si;
} vp_chld[64];

static bool sigchld_caught(pid_t tid)
{
	struct proc_sigmasks m;

	if (proc_sigmasks(tid, &m) < 0)
		return false;
	return m.caught & (1ull << (SIGCHLD - 1));
}

static void notify_tracer(pid_t tgid, pid_t tid, int code, int status)
{
	struct vp_chld *free_slot = NULL;
	size_t i;

	if (!sigchld_caught(tgid))
		return;
	for (i = 0; i < sizeof(vp_chld) / sizeof(vp_chld[0]); i++) {
		if (vp_chld[i].tgid == tgid)
			return; /* one is on its way */
		if (!vp_chld[i].tgid && !free_slot)
			free_slot = &vp_chld[i];
	}
	if (!free_slot)
		return;
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->tgid = tgid;
	free_slot->si.si_signo = SIGCHLD;
	free_slot->si.si_code = code;
	free_slot->si.si_pid = tid;
	free_slot->si.si_uid = getuid();
	free_slot->si.si_status = status;
	if (kill(tgid, SIGCHLD) < 0)
		free_slot->tgid = 0;
}

void rec_vptrace_sigchld(struct rtask *t, siginfo_t *si)
{
	size_t i;

	if (si->si_signo != SIGCHLD || si->si_code != SI_USER ||
	    si->si_pid != getpid())
		return;
	for (i = 0; i < sizeof(vp_chld) / sizeof(vp_chld[0]); i++) {
		if (vp_chld[i].tgid != t->tgid)
			continue;
		*si = vp_chld[i].si;
		vp_chld[i].tgid = 0;
		ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, si);
		return;
	}
}

/* T stops for its tracer with the given wait status. */
void vp_hold(struct recorder *rec, struct rtask *t, enum vp_stop kind,
	     int status, bool at_event)
{
	struct rec_vptrace *v = t->vp;

	v->held = true;
	v->reported = false;
	v->kind = kind;
	v->status = status;
	v->at_event = at_event;
	v->at_entry = false;
	v->at_point = false;
	v->skipped_exit = false;
	if (tracee_get_regs(&t->t, &v->regs) < 0)
		memset(&v->regs, 0, sizeof(v->regs));
	if (kind != VP_SIGNAL && kind != VP_EXEC_SIGTRAP) {
		memset(&v->si, 0, sizeof(v->si));
		v->si.si_signo = SIGTRAP;
		v->si.si_code = (status >> 8) & 0xffff;
		v->si.si_pid = t->tgid;
		v->si.si_uid = getuid();
	}
	rec_sched_release(rec, t, "is stopped by its tracer");
	mrr_debug("vptrace: pid %d stops for pid %d, status 0x%x", t->t.tid,
		  v->tracer, status);
	vp_wake_waiters(rec);
	vp_kick_waits(rec, v->tracer);
	notify_tracer(v->tracer, t->t.tid, CLD_TRAPPED, (status >> 8) & 0xff);
}

int vp_trap_status(int code)
{
	return (code << 8) | 0x7f;
}

int vp_sysstop_status(const struct rec_vptrace *v)
{
	return vp_trap_status(
		SIGTRAP | ((v->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0));
}

/* The tracer lets t go on from its stop, with sig (0: none). */
void vp_resume_tracee(struct recorder *rec, struct rtask *t, int sig)
{
	struct rec_vptrace *v = t->vp;
	enum vp_stop kind = v->kind;

	v->held = false;
	v->reported = false;
	if (v->systrace || v->interrupt)
		rec_sbuf_trace_next(t);
	switch (kind) {
	case VP_SIGNAL:
		if (!sig) {
			ptrace(PTRACE_CONT, t->t.tid, 0, 0);
			return;
		}
		if (sig != v->si.si_signo) {
			memset(&v->si, 0, sizeof(v->si));
			v->si.si_signo = sig;
			v->si.si_code = SI_USER;
			v->si.si_pid = v->tracer;
			v->si.si_uid = getuid();
		}
		ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, &v->si);
		if (v->at_point) {
			/* still at its point: delivered there */
			rec_write_signal(rec, t, &v->regs, &v->si,
					 MRR_SIG_AT_POINT);
			ptrace(PTRACE_CONT, t->t.tid, 0, sig);
			return;
		}
		rec_signal_deliver(rec, t, sig, &v->si, &v->regs, v->at_event);
		return;
	case VP_ENTRY:
		v->entry_passed = true;
		rec_syscall_entry(rec, t);
		return;
	case VP_EXIT:
		rec_exit_tail(rec, t);
		return;
	case VP_EXEC_EVENT:
		if (v->exec_sysexit && v->systrace) {
			v->exec_sysexit = false;
			vp_hold(rec, t, VP_EXIT_CONT, vp_sysstop_status(v),
				true);
			return;
		}
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	case VP_EXIT_CONT:
		if (v->exec_trap) {
			v->exec_trap = false;
			vp_hold(rec, t, VP_EXEC_SIGTRAP,
				vp_trap_status(SIGTRAP), true);
			memset(&v->si, 0, sizeof(v->si));
			v->si.si_signo = SIGTRAP;
			v->si.si_code = SI_USER;
			v->si.si_pid = t->tgid;
			v->si.si_uid = getuid();
			return;
		}
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	case VP_EXEC_SIGTRAP:
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	case VP_ENTRY_INTERRUPT:
		rec_syscall_entry(rec, t);
		return;
	case VP_FIRST_SIGSTOP:
		/* the SIGSTOP was mrr's pretence: nothing to deliver */
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
}

/* The registers the tracer sees. */
void vp_tracee_regs(const struct rtask *t, struct user_regs_struct *r)
{
	*r = t->vp->regs;
	if (t->vp->skipped_exit)
		r->orig_rax = (uint64_t)t->nr;
}

bool vp_traced_by(const struct rtask *x, const struct rtask *tracer)
{
	return x->vp && x->vp->tracer == tracer->tgid;
}

void vp_detach(struct rtask *x)
{
	free(x->vp);
	x->vp = NULL;
}

/* The signal a tracee stops with, for its tracer: the stop of an
 * attach (its SIGSTOP) looks as the kernel's own. */
static void vp_note_signal(struct rec_vptrace *v, const siginfo_t *si)
{
	v->si = *si;
	if (v->attach_stop && si->si_signo == SIGSTOP) {
		v->attach_stop = false;
		v->si.si_code = SI_KERNEL;
		v->si.si_pid = 0;
		v->si.si_uid = 0;
	}
}

bool rec_vptrace_signal(struct recorder *rec, struct rtask *t,
			const siginfo_t *si, struct user_regs_struct *regs,
			bool at_exit)
{
	struct rec_vptrace *v = t->vp;
	bool sync = si->si_code > 0 && si->si_signo != SIGSTOP &&
		    (si->si_signo == SIGSEGV || si->si_signo == SIGBUS ||
		     si->si_signo == SIGFPE || si->si_signo == SIGILL ||
		     si->si_signo == SIGTRAP || si->si_signo == SIGSYS);

	if (!v || si->si_signo == SIGKILL)
		return false;
	if (!at_exit && !sync && !t->deferred &&
	    rec_preempt_signal(rec, t, si, regs))
		return true; /* held at a point (rec_vptrace_point) */
	if (!at_exit && !sync) {
		/* held until the next syscall's exit, where the replay can
		 * stop the tracee the same way */
		if (t->deferred) {
			if (t->nqueued <
			    (int)(sizeof(t->queued) / sizeof(t->queued[0])))
				t->queued[t->nqueued++] = *si;
		} else {
			t->deferred = true;
			t->deferred_info = *si;
			rec_sbuf_trace_next(t);
		}
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return true;
	}
	vp_hold(rec, t, VP_SIGNAL, vp_trap_status(si->si_signo),
		at_exit && !sync);
	vp_note_signal(v, si);
	return true;
}

void rec_vptrace_point(struct recorder *rec, struct rtask *t,
		       const siginfo_t *si, const struct user_regs_struct *regs)
{
	struct rec_vptrace *v = t->vp;

	(void)regs;
	vp_hold(rec, t, VP_SIGNAL, vp_trap_status(si->si_signo), false);
	v->at_point = true;
	vp_note_signal(v, si);
}

bool rec_vptrace_entry(struct recorder *rec, struct rtask *t)
{
	struct rec_vptrace *v = t->vp;

	if (!v ||
	    (t->nr >= MRR_SYSCALL_REGISTER && t->nr <= MRR_SYSCALL_DESYNC))
		return false;
	if (v->interrupt && t->nr != SYS_sched_yield &&
	    mrr_syscall_may_block(t->nr, t->args)) {
		v->interrupt = false;
		vp_hold(rec, t, VP_ENTRY_INTERRUPT,
			vp_trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)),
			false);
		v->at_entry = true;
		return true;
	}
	if (!v->systrace || v->entry_passed)
		return false;
	vp_hold(rec, t, VP_ENTRY, vp_sysstop_status(v), false);
	v->at_entry = true;
	return true;
}

bool rec_vptrace_wants_exit(const struct rtask *t)
{
	return t->vp && (t->vp->systrace || t->vp->interrupt);
}

bool rec_vptrace_exit(struct recorder *rec, struct rtask *t, bool skipped)
{
	struct rec_vptrace *v = t->vp;
	bool control =
		t->nr >= MRR_SYSCALL_REGISTER && t->nr <= MRR_SYSCALL_DESYNC;

	if (!v)
		return false;
	v->entry_passed = false;
	if (control || rec->stop_reason[0])
		return false;
	if (v->fork_event) {
		/* the fork's event, then (PTRACE_SYSCALL) its exit stop */
		int st = v->fork_event;

		v->fork_event = 0;
		v->exec_sysexit = true;
		vp_hold(rec, t, VP_EXEC_EVENT, st, true);
		v->skipped_exit = skipped;
		return true;
	}
	if (v->systrace) {
		vp_hold(rec, t, skipped ? VP_EXIT_CONT : VP_EXIT,
			vp_sysstop_status(v), true);
		v->skipped_exit = skipped;
		return true;
	}
	if (v->interrupt) {
		v->interrupt = false;
		vp_hold(rec, t, skipped ? VP_EXIT_CONT : VP_EXIT,
			vp_trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)),
			true);
		v->skipped_exit = skipped;
		return true;
	}
	return false;
}

bool rec_vptrace_exec(struct recorder *rec, struct rtask *t)
{
	struct rec_vptrace *v = t->vp;

	if (!v)
		return false;
	v->entry_passed = false;
	v->eventmsg =
		(unsigned long)(t->exec_old_tid ? t->exec_old_tid : t->t.tid);
	if (v->options & PTRACE_O_TRACEEXEC) {
		v->exec_sysexit = true;
		vp_hold(rec, t, VP_EXEC_EVENT,
			vp_trap_status(SIGTRAP | (PTRACE_EVENT_EXEC << 8)),
			true);
		return true;
	}
	if (v->seized) {
		if (!v->systrace)
			return false;
		vp_hold(rec, t, VP_EXIT_CONT, vp_sysstop_status(v), true);
		return true;
	}
	if (v->systrace) {
		v->exec_trap = true;
		vp_hold(rec, t, VP_EXIT_CONT, vp_sysstop_status(v), true);
		return true;
	}
	vp_hold(rec, t, VP_EXEC_SIGTRAP, vp_trap_status(SIGTRAP), true);
	memset(&v->si, 0, sizeof(v->si));
	v->si.si_signo = SIGTRAP;
	v->si.si_code = SI_USER;
	v->si.si_pid = t->tgid;
	v->si.si_uid = getuid();
	return true;
}

bool rec_vptrace_exit_event(struct recorder *rec, struct rtask *t)
{
	struct rec_vptrace *v = t->vp;

	if (!v || !(v->options & PTRACE_O_TRACEEXIT))
		return false;
	v->entry_passed = false;
	v->eventmsg = (t->args[0] & 0xff) << 8;
	vp_hold(rec, t, VP_EXIT_CONT,
		vp_trap_status(SIGTRAP | (PTRACE_EVENT_EXIT << 8)), false);
	v->at_entry = true;
	return true;
}

void rec_vptrace_fork(struct recorder *rec, struct rtask *t,
		      struct rtask *child)
{
	struct rec_vptrace *v = t->vp, *cv;
	uint64_t flags = 0;
	unsigned long opt;
	int ev;

	(void)rec;
	if (!v || !(v->options & VP_O_FORKS))
		return;
	if (t->nr == SYS_clone)
		flags = t->args[0];
	else if (t->nr == SYS_clone3 &&
		 tracee_read_all(&t->t, t->args[0], &flags, 8) < 0)
		flags = 0;
	if (t->nr == SYS_vfork || (flags & CLONE_VFORK)) {
		opt = PTRACE_O_TRACEVFORK;
		ev = PTRACE_EVENT_VFORK;
	} else if (t->nr == SYS_fork || (flags & 0xff) == SIGCHLD) {
		opt = PTRACE_O_TRACEFORK;
		ev = PTRACE_EVENT_FORK;
	} else {
		opt = PTRACE_O_TRACECLONE;
		ev = PTRACE_EVENT_CLONE;
	}
	if (!(v->options & opt) ||
	    (t->nr == SYS_clone && (flags & CLONE_UNTRACED)))
		return;
	cv = calloc(1, sizeof(*cv));
	if (!cv)
		mrr_fatal("out of memory");
	cv->tracer = v->tracer;
	cv->tracer_tid = v->tracer_tid;
	cv->seized = v->seized;
	cv->options = v->options;
	cv->first_stop = true;
	child->vp = cv;
	v->fork_event = vp_trap_status(SIGTRAP | (ev << 8));
	v->eventmsg = (unsigned long)child->t.tid;
	mrr_debug("vptrace: pid %d's new task %d is traced by pid %d too",
		  t->t.tid, child->t.tid, v->tracer);
}

bool rec_vptrace_first_stop(struct recorder *rec, struct rtask *t)
{
	struct rec_vptrace *v = t->vp;

	if (!v || !v->first_stop)
		return false;
	v->first_stop = false;
	if (v->seized) {
		vp_hold(rec, t, VP_EXIT_CONT,
			vp_trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)),
			false);
		return true;
	}
	vp_hold(rec, t, VP_FIRST_SIGSTOP, vp_trap_status(SIGSTOP), false);
	memset(&v->si, 0, sizeof(v->si));
	v->si.si_signo = SIGSTOP;
	v->si.si_code = SI_KERNEL;
	return true;
}

void rec_vptrace_gone(struct recorder *rec, struct rtask *t, int status)
{
	struct rtask *x, *tracer;

	if (t->vp) {
		tracer = vp_task_of(rec, t->vp->tracer);
		/* a tracer that is not the parent hears of the exit first */
		if (tracer && t->exit_written && t->parent != tracer->t.tid &&
		    t->parent != tracer->tgid && t->tgid == t->t.tid &&
		    (WIFEXITED(status) || WIFSIGNALED(status))) {
			struct rec_vwait *w = vp_vwait_of(tracer);

			if (w->nexits <
			    (int)(sizeof(w->exits) / sizeof(w->exits[0]))) {
				w->exits[w->nexits].tid = t->t.tid;
				w->exits[w->nexits].pgid = getpgid(t->t.tid);
				w->exits[w->nexits].status = status;
				w->nexits++;
			}
			vp_kick_waits(rec, tracer->tgid);
			notify_tracer(tracer->tgid, t->t.tid,
				      WIFEXITED(status)	  ? CLD_EXITED
				      : WCOREDUMP(status) ? CLD_DUMPED
							  : CLD_KILLED,
				      WIFEXITED(status) ? WEXITSTATUS(status)
							: WTERMSIG(status));
		}
		vp_detach(t);
	}
	/* a tracer's tracees go free (or die, with PTRACE_O_EXITKILL) */
	for (x = rec->tasks; x; x = x->next) {
		if (!x->vp || x->vp->tracer != t->tgid || t->tgid != t->t.tid)
			continue;
		if (x->vp->options & PTRACE_O_EXITKILL) {
			syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
			vp_detach(x);
			continue;
		}
		x->vp->systrace = false;
		x->vp->interrupt = false;
		if (x->vp->held)
			vp_resume_tracee(rec, x,
					 x->vp->kind == VP_SIGNAL
						 ? x->vp->si.si_signo
						 : 0);
		if (x->vp)
			vp_detach(x);
	}
	free(t->vw);
	t->vw = NULL;
	vp_wake_waiters(rec);
}
