/* ptrace emulated for the recorded program: see vptrace.h.
 *
 * Where a tracee stops for its virtual tracer, mrr leaves it in its own
 * real ptrace-stop and queues a wait status. Stops are placed only where
 * the replay's tracee stands at the same state: right after one of its
 * events (a syscall's exit, a signal's delivery point after a syscall, an
 * exec), at a syscall's entry, or at a fault. A tracer's write into its
 * tracee (PTRACE_POKEDATA) is allowed only at the first kind, where the
 * replay, which has run no user code of the tracee since that event
 * either, applies the same write when it replays the tracer's call (the
 * call's arguments carry all of it). */
#include "record/vptrace.h"

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

#define VP_GET_SYSCALL_INFO 0x420e
#define VP_O_SUPPORTED                                                         \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK |     \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT |      \
	 PTRACE_O_TRACEVFORKDONE | PTRACE_O_EXITKILL)
#define VP_O_FORKS                                                             \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE)

/* Where a held tracee goes on when its tracer resumes it. */
enum vp_stop {
	VP_SIGNAL,	   /* a signal-delivery stop: deliver, change or drop */
	VP_ENTRY,	   /* a syscall-entry stop: the entry is handled then */
	VP_EXIT,	   /* after a traced call's exit event */
	VP_EXIT_CONT,	   /* after a skipped call or an exec: PTRACE_CONT */
	VP_EXEC_EVENT,	   /* PTRACE_EVENT_EXEC, then maybe the exit stop */
	VP_EXEC_SIGTRAP,   /* the SIGTRAP after a non-seized tracee's exec */
	VP_FIRST_SIGSTOP,  /* a new traced task's first stop (not seized) */
	VP_ENTRY_INTERRUPT /* PTRACE_INTERRUPT at a call that may block */
};

/* A tracee's side of the relationship. */
struct rec_vptrace {
	pid_t tracer;	  /* the tracer's process (tgid) */
	pid_t tracer_tid; /* the thread that attached */
	bool seized;
	unsigned long options;
	bool held; /* in a stop for its tracer */
	bool reported;
	int status;
	enum vp_stop kind;
	/* no user code ran since the tracee's last event: writes allowed */
	bool at_event;
	bool skipped_exit; /* held after a skipped call: orig_rax shows -1 */
	siginfo_t si;
	struct user_regs_struct regs;
	bool systrace;	   /* resumed with PTRACE_SYSCALL */
	bool entry_passed; /* its syscall-entry stop was made */
	bool interrupt;	   /* PTRACE_INTERRUPT asked */
	bool attach_stop;  /* the SIGSTOP of PTRACE_ATTACH is on its way */
	bool exec_trap;	   /* a SIGTRAP stop follows the exec's exit stop */
	bool exec_sysexit; /* an exit stop follows the exec event stop */
	bool first_stop;   /* a new task: it stops before it runs */
	bool kicked;   /* blocked in a call, interrupted for PTRACE_INTERRUPT */
	bool at_entry; /* held at a syscall's entry stop (its seccomp stop) */
	int fork_event; /* the status of a fork event to report, or 0 */
	unsigned long eventmsg;
};

/* A tracer's side: exits of tracees not its children, and its wait. */
struct rec_vwait {
	struct vexit {
		pid_t tid, pgid;
		int status;
	} exits[16];
	int nexits;
	bool forced;	   /* its wait runs with WNOHANG added */
	bool kicked;	   /* its real wait was interrupted to look again */
	unsigned long gen; /* vp_gen when its wait began */
	bool blocked;	   /* set back to wait again, held */
	uint64_t saved_opt;
};

static uint64_t ev_count(struct recorder *rec)
{
	return mrr_trace_writer_events(rec->w);
}

static const char *req_name(long req)
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

static void refuse(struct recorder *rec, struct rtask *t, const char *what)
{
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d called ptrace(%s) at event %llu; %s, so the "
		 "recording stops here",
		 t->t.tid, req_name((long)t->args[0]),
		 (unsigned long long)ev_count(rec), what);
}

static void refuse_options(struct recorder *rec, struct rtask *t, uint64_t opts)
{
	char what[160];

	snprintf(what, sizeof(what),
		 "its options 0x%llx ask for stops mrr does not emulate "
		 "(%s)",
		 (unsigned long long)opts,
		 (opts & PTRACE_O_TRACESECCOMP) ? "PTRACE_O_TRACESECCOMP"
		 : (opts & PTRACE_O_SUSPEND_SECCOMP)
			 ? "PTRACE_O_SUSPEND_SECCOMP"
			 : "an unknown option");
	refuse(rec, t, what);
}

static struct rtask *task_of(struct recorder *rec, pid_t tid)
{
	struct rtask *x;

	for (x = rec->tasks; x; x = x->next)
		if (x->t.tid == tid && !x->exit_written)
			return x;
	return NULL;
}

static struct rec_vwait *vwait_of(struct rtask *t)
{
	if (!t->vw)
		t->vw = calloc(1, sizeof(*t->vw));
	if (!t->vw)
		mrr_fatal("out of memory");
	return t->vw;
}

/* The tracer's call is answered: result, and the bytes of len at addr
 * written into it (recorded as the call's memory). */
static void answer(struct recorder *rec, struct rtask *t, int64_t result,
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

/* Counts the changes a waiting tracer may want to see (a tracee's stop,
 * a task's end), so that one that began its wait before a change, and
 * found nothing, looks again rather than block (rec_vptrace_wait_exit). */
static unsigned long vp_gen;

/* Wakes the tracers held in a wait: they make their call again. */
static void wake_waiters(struct recorder *rec)
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
	char path[64], line[256];
	unsigned long long cgt = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7))
			cgt = strtoull(line + 7, NULL, 16);
	fclose(f);
	return cgt & (1ull << (SIGCHLD - 1));
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

static void kick_waits(struct recorder *rec, pid_t tgid);

/* T stops for its tracer with the given wait status. */
static void hold(struct recorder *rec, struct rtask *t, enum vp_stop kind,
		 int status, bool at_event)
{
	struct rec_vptrace *v = t->vp;

	v->held = true;
	v->reported = false;
	v->kind = kind;
	v->status = status;
	v->at_event = at_event;
	v->at_entry = false;
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
	wake_waiters(rec);
	kick_waits(rec, v->tracer);
	notify_tracer(v->tracer, t->t.tid, CLD_TRAPPED, (status >> 8) & 0xff);
}

static int trap_status(int code)
{
	return (code << 8) | 0x7f;
}

static int sysstop_status(const struct rec_vptrace *v)
{
	return trap_status(SIGTRAP |
			   ((v->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0));
}

/* The tracer lets t go on from its stop, with sig (0: none). */
static void resume_tracee(struct recorder *rec, struct rtask *t, int sig)
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
			hold(rec, t, VP_EXIT_CONT, sysstop_status(v), true);
			return;
		}
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	case VP_EXIT_CONT:
		if (v->exec_trap) {
			v->exec_trap = false;
			hold(rec, t, VP_EXEC_SIGTRAP, trap_status(SIGTRAP),
			     true);
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
static void tracee_regs(const struct rtask *t, struct user_regs_struct *r)
{
	*r = t->vp->regs;
	if (t->vp->skipped_exit)
		r->orig_rax = (uint64_t)t->nr;
}

static bool traced_by(const struct rtask *x, const struct rtask *tracer)
{
	return x->vp && x->vp->tracer == tracer->tgid;
}

static void detach(struct rtask *x)
{
	free(x->vp);
	x->vp = NULL;
}

/* x is held at a syscall's entry stop, after user code: an event marks
 * the point (its buffered calls first), the replay's x stops there too
 * (an MRR_EV_SCHED event drives a task to its call's entry stop and holds
 * it), and the tracer's writes can be repeated at the same state. */
static void mark_entry(struct recorder *rec, struct rtask *x)
{
	struct mrr_event ev = {0};
	struct capture c = {0};

	rec_sbuf_flush(rec, x);
	ev.kind = MRR_EV_SCHED;
	ev.tid = x->t.tid;
	ev.ip = x->entry_regs.rip;
	ev.nr = x->nr;
	memcpy(ev.args, x->args, sizeof(ev.args));
	ev.result = MRR_SCHED_HELD;
	rec_write_event(rec, x, &ev, &c);
	x->vp->at_event = true;
	x->vp->at_entry = false;
}

/* The requests of a tracer on a tracee of its that is held. */
static void request(struct recorder *rec, struct rtask *t, struct rtask *x)
{
	struct rec_vptrace *v = x->vp;
	const uint64_t *a = t->args;
	long req = (long)a[0];
	struct user_regs_struct regs;
	unsigned long word;
	int sig = (int)a[3];

	switch (req) {
	case PTRACE_PEEKTEXT:
	case PTRACE_PEEKDATA:
		errno = 0;
		word = (unsigned long)ptrace(PTRACE_PEEKDATA, x->t.tid, a[2],
					     0);
		if (errno) {
			answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		answer(rec, t, 0, a[3], &word, sizeof(word));
		return;
	case PTRACE_PEEKUSER:
		if (a[2] & 7 || a[2] >= sizeof(struct user)) {
			answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (a[2] < sizeof(regs)) {
			tracee_regs(x, &regs);
			memcpy(&word, (char *)&regs + a[2], sizeof(word));
		} else if (a[2] >= offsetof(struct user, u_debugreg)) {
			word = 0; /* mrr's own breakpoints are not the tracer's
				   */
		} else {
			errno = 0;
			word = (unsigned long)ptrace(PTRACE_PEEKUSER, x->t.tid,
						     a[2], 0);
			if (errno) {
				answer(rec, t, -errno, 0, NULL, 0);
				return;
			}
		}
		answer(rec, t, 0, a[3], &word, sizeof(word));
		return;
	case PTRACE_POKETEXT:
	case PTRACE_POKEDATA:
		if (!v->at_event && v->at_entry)
			mark_entry(rec, x);
		if (!v->at_event) {
			refuse(rec, t,
			       "a write into a tracee stopped where it ran "
			       "code since its last event (at a fault, or "
			       "before it first ran) is not emulated");
			return;
		}
		if (ptrace(PTRACE_POKEDATA, x->t.tid, a[2], a[3]) < 0) {
			answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_GETREGS:
		tracee_regs(x, &regs);
		answer(rec, t, 0, a[3], &regs, sizeof(regs));
		return;
	case PTRACE_GETFPREGS: {
		struct user_fpregs_struct fp;

		if (ptrace(PTRACE_GETFPREGS, x->t.tid, 0, &fp) < 0) {
			answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		answer(rec, t, 0, a[3], &fp, sizeof(fp));
		return;
	}
	case PTRACE_GETREGSET: {
		struct iovec iov, mine;
		void *buf;

		if (tracee_read_all(&t->t, a[3], &iov, sizeof(iov)) < 0) {
			answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		if (iov.iov_len > 65536)
			iov.iov_len = 65536;
		buf = calloc(1, iov.iov_len + 1);
		if (!buf)
			mrr_fatal("out of memory");
		mine.iov_base = buf;
		mine.iov_len = iov.iov_len;
		if (ptrace(PTRACE_GETREGSET, x->t.tid, a[2], &mine) < 0) {
			answer(rec, t, -errno, 0, NULL, 0);
			free(buf);
			return;
		}
		if (a[2] == 1 /* NT_PRSTATUS */) {
			tracee_regs(x, &regs);
			memcpy(buf, &regs,
			       mine.iov_len < sizeof(regs) ? mine.iov_len
							   : sizeof(regs));
		}
		iov.iov_len = mine.iov_len;
		{
			struct capture c = {0};
			int64_t res = 0;

			if (tracee_write_all(&t->t,
					     (uint64_t)(uintptr_t)iov.iov_base,
					     buf, mine.iov_len) < 0 ||
			    tracee_write_all(&t->t, a[3] + 8, &iov.iov_len, 8) <
				    0)
				res = -EFAULT;
			else {
				capture_add(&c, t,
					    (uint64_t)(uintptr_t)iov.iov_base,
					    mine.iov_len);
				capture_add(&c, t, a[3] + 8, 8);
			}
			rec_skip_syscall(rec, t, res, &c);
			free(c.data);
		}
		free(buf);
		return;
	}
	case PTRACE_GETSIGINFO:
		answer(rec, t, 0, a[3], &v->si, sizeof(v->si));
		return;
	case PTRACE_SETSIGINFO:
		if (tracee_read_all(&t->t, a[3], &v->si, sizeof(v->si)) < 0) {
			answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_GETEVENTMSG:
		answer(rec, t, 0, a[3], &v->eventmsg, sizeof(v->eventmsg));
		return;
	case PTRACE_GETSIGMASK:
	case PTRACE_PEEKSIGINFO:
	case VP_GET_SYSCALL_INFO:
		break;
	case PTRACE_SETOPTIONS:
		if (a[3] & ~(uint64_t)VP_O_SUPPORTED) {
			refuse_options(rec, t, t->args[3]);
			return;
		}
		v->options = a[3];
		answer(rec, t, 0, 0, NULL, 0);
		return;
	case PTRACE_CONT:
	case PTRACE_SYSCALL:
	case PTRACE_DETACH:
		if (sig < 0 || sig > 64) {
			answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (sig && v->kind != VP_SIGNAL)
			sig = 0; /* only a signal-delivery stop delivers */
		if (sig &&
		    (v->kind == VP_EXEC_SIGTRAP || sig == SIGSTOP ||
		     sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)) {
			refuse(rec, t,
			       "delivering a stop signal or the exec's "
			       "SIGTRAP to a traced task is not emulated");
			return;
		}
		answer(rec, t, 0, 0, NULL, 0);
		v->systrace = req == PTRACE_SYSCALL;
		if (req == PTRACE_DETACH) {
			v->systrace = false;
			v->interrupt = false;
			resume_tracee(rec, x, sig);
			detach(x);
			return;
		}
		resume_tracee(rec, x, sig);
		return;
	case PTRACE_KILL:
		answer(rec, t, 0, 0, NULL, 0);
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
		return;
	case PTRACE_POKEUSER:
		if (a[2] & 7 || a[2] >= sizeof(struct user)) {
			answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		refuse(rec, t, "this request is not emulated");
		return;
	case PTRACE_SETREGS:
	case PTRACE_SETFPREGS: {
		/* the kernel reads the registers first */
		uint8_t buf[sizeof(struct user_fpregs_struct)];

		if (tracee_read_all(
			    &t->t, a[3], buf,
			    req == PTRACE_SETREGS
				    ? sizeof(struct user_regs_struct)
				    : sizeof(struct user_fpregs_struct)) < 0) {
			answer(rec, t, -EFAULT, 0, NULL, 0);
			return;
		}
		refuse(rec, t, "this request is not emulated");
		return;
	}
	default:
		if (!strncmp(req_name(req), "request ", 8)) {
			answer(rec, t, -EIO, 0, NULL, 0); /* no such request */
			return;
		}
		refuse(rec, t, "this request is not emulated");
		return;
	}
	/* reads of the tracee's state mrr makes as they are */
	if (req == VP_GET_SYSCALL_INFO) {
		struct {
			uint8_t op, pad[3];
			uint32_t arch;
			uint64_t ip, sp;
			union {
				struct {
					uint64_t nr, args[6];
				} entry;
				struct {
					int64_t rval;
					uint8_t is_error;
				} exit;
			};
		} info;
		size_t len = 24;
		int i;

		memset(&info, 0, sizeof(info));
		tracee_regs(x, &regs);
		info.arch = 0xc000003eu; /* AUDIT_ARCH_X86_64 */
		info.ip = regs.rip;
		info.sp = regs.rsp;
		if (v->kind == VP_ENTRY) {
			info.op = 1;
			info.entry.nr = regs.orig_rax;
			for (i = 0; i < 6; i++)
				info.entry.args[i] = regs_arg(&regs, i);
			len = 24 + 56;
		} else if ((v->kind == VP_EXIT || v->kind == VP_EXIT_CONT) &&
			   (v->status >> 8) == (sysstop_status(v) >> 8)) {
			info.op = 2;
			info.exit.rval = (int64_t)regs.rax;
			info.exit.is_error = (uint64_t)regs.rax > -4096ull;
			len = 24 + 9;
		}
		answer(rec, t, (int64_t)len, a[3], &info,
		       a[2] < len ? a[2] : len);
		return;
	}
	if (req == PTRACE_GETSIGMASK) {
		uint64_t mask;

		if (a[2] != 8) {
			answer(rec, t, -EINVAL, 0, NULL, 0);
			return;
		}
		if (ptrace(PTRACE_GETSIGMASK, x->t.tid, 8, &mask) < 0) {
			answer(rec, t, -errno, 0, NULL, 0);
			return;
		}
		answer(rec, t, 0, a[3], &mask, sizeof(mask));
		return;
	}
	refuse(rec, t, "this request is not emulated");
}

/* The threads of process tgid blocked in a real wait, which would not
 * see a virtual tracee's stops, are interrupted (PTRACE_INTERRUPT: the
 * call returns -ERESTARTSYS to mrr) and make their call again, unrecorded
 * (rec_vptrace_wait_exit). */
static void kick_waits(struct recorder *rec, pid_t tgid)
{
	struct rtask *y;

	for (y = rec->tasks; y; y = y->next) {
		if (y->tgid != tgid || !y->in_syscall ||
		    (y->nr != SYS_wait4 && y->nr != SYS_waitid) ||
		    (y->vw && (y->vw->kicked || y->vw->blocked)))
			continue;
		if (ptrace(PTRACE_INTERRUPT, y->t.tid, 0, 0) == 0)
			vwait_of(y)->kicked = true;
	}
}

/* From /proc/TID/status: the uids and gids (real, effective, saved),
 * CapEff and the state letter. Returns -1 when it cannot be read. */
struct vp_creds {
	unsigned long uid[3], gid[3];
	unsigned long long capeff;
	char state;
};

static int read_creds(pid_t tid, struct vp_creds *c)
{
	char path[64], line[256];
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%lu %lu %lu", &c->uid[0], &c->uid[1],
			       &c->uid[2]);
		else if (!strncmp(line, "Gid:", 4))
			sscanf(line + 4, "%lu %lu %lu", &c->gid[0], &c->gid[1],
			       &c->gid[2]);
		else if (!strncmp(line, "CapEff:", 7))
			c->capeff = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &c->state);
	}
	fclose(f);
	return 0;
}

/* The kernel's check for PTRACE_ATTACH/SEIZE with the tracer's real ids:
 * the same ids as every one of the tracee's, or CAP_SYS_PTRACE. */
static bool may_attach(const struct vp_creds *me, const struct vp_creds *it)
{
	int i;

	if (me->capeff & (1ull << 19 /* CAP_SYS_PTRACE */))
		return true;
	for (i = 0; i < 3; i++)
		if (it->uid[i] != me->uid[0] || it->gid[i] != me->gid[0])
			return false;
	return true;
}

/* TRACEME, ATTACH and SEIZE: t starts tracing, or is traced. */
static void start_tracing(struct recorder *rec, struct rtask *t)
{
	long req = (long)t->args[0];
	struct rtask *x, *tracer = t;
	struct rec_vptrace *v;

	if (req == PTRACE_TRACEME) {
		x = t;
		tracer = t->parent ? task_of(rec, t->parent) : NULL;
		if (!tracer) {
			refuse(rec, t,
			       "its parent is not a recorded process, and "
			       "mrr emulates ptrace only among the processes "
			       "it records");
			return;
		}
	} else {
		struct vp_creds me, it;

		x = task_of(rec, (pid_t)t->args[1]);
		if (!x) {
			if (kill((pid_t)t->args[1], 0) < 0) {
				answer(rec, t, -ESRCH, 0, NULL, 0);
				return;
			}
			if (read_creds((pid_t)t->args[1], &it) == 0 &&
			    (it.state == 'Z' || it.state == 'X')) {
				answer(rec, t, -EPERM, 0, NULL, 0);
				return;
			}
			refuse(rec, t,
			       "its tracee is not a recorded process, and mrr "
			       "emulates ptrace only among the processes it "
			       "records");
			return;
		}
		if (x->tgid == t->tgid || read_creds(t->t.tid, &me) < 0 ||
		    read_creds(x->t.tid, &it) < 0 || !may_attach(&me, &it)) {
			answer(rec, t, -EPERM, 0, NULL, 0);
			return;
		}
		if (x->job_stopped && req == PTRACE_ATTACH) {
			/* it would trap at once (a seizing tracer waits for
			 * a SIGCONT or a PTRACE_INTERRUPT, which works) */
			refuse(rec, t,
			       "attaching with PTRACE_ATTACH to a task in a "
			       "group-stop (stopped by SIGSTOP) is not "
			       "emulated");
			return;
		}
		if (req == PTRACE_SEIZE &&
		    (t->args[3] & ~(uint64_t)VP_O_SUPPORTED)) {
			refuse_options(rec, t, t->args[3]);
			return;
		}
		if (req == PTRACE_SEIZE && t->args[2]) {
			answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
	}
	if (x->vp) {
		answer(rec, t, -EPERM, 0, NULL, 0);
		return;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		mrr_fatal("out of memory");
	v->tracer = tracer->tgid;
	v->tracer_tid = tracer->t.tid;
	v->seized = req == PTRACE_SEIZE;
	if (v->seized)
		v->options = t->args[3];
	x->vp = v;
	mrr_debug("vptrace: pid %d is traced by pid %d (%s)", x->t.tid,
		  v->tracer, req_name(req));
	answer(rec, t, 0, 0, NULL, 0);
	kick_waits(rec, v->tracer);
	if (req == PTRACE_ATTACH) {
		v->attach_stop = true;
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGSTOP);
	}
}

void rec_vptrace_call(struct recorder *rec, struct rtask *t)
{
	long req = (long)t->args[0];
	struct rtask *x;

	if (req == PTRACE_TRACEME || req == PTRACE_ATTACH ||
	    req == PTRACE_SEIZE) {
		start_tracing(rec, t);
		return;
	}
	x = task_of(rec, (pid_t)t->args[1]);
	if (!x || !traced_by(x, t)) {
		/* it traces nothing there: natively ESRCH */
		answer(rec, t, -ESRCH, 0, NULL, 0);
		return;
	}
	if (req == PTRACE_INTERRUPT) {
		if (!x->vp->seized) {
			answer(rec, t, -EIO, 0, NULL, 0);
			return;
		}
		if (!x->vp->held) {
			/* it stops at its next syscall's exit, where the
			 * replay finds it again, or at the entry of a call
			 * that may block; one blocked in a call already is
			 * interrupted there (rec_vptrace_wait_exit) */
			x->vp->interrupt = true;
			rec_sbuf_trace_next(x);
			if (x->in_syscall &&
			    ptrace(PTRACE_INTERRUPT, x->t.tid, 0, 0) == 0)
				x->vp->kicked = true;
		}
		answer(rec, t, 0, 0, NULL, 0);
		return;
	}
	if (req == PTRACE_KILL && !x->vp->held) {
		answer(rec, t, 0, 0, NULL, 0);
		syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
		return;
	}
	if (!x->vp->held) {
		answer(rec, t, -ESRCH, 0, NULL, 0);
		return;
	}
	request(rec, t, x);
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
		if (!traced_by(x, t) || x->exit_written ||
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
	 * tracee's stop interrupts it too (kick_waits), and it is made again
	 * to look. With no real child, it fails with ECHILD at once, and
	 * rec_vptrace_wait_exit makes it wait. */
	w = vwait_of(t);
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
		if (traced_by(x, t) && !x->exit_written && x->vp->held &&
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
		if (traced_by(x, t) && !x->exit_written &&
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

bool rec_vptrace_signal(struct recorder *rec, struct rtask *t,
			const siginfo_t *si,
			const struct user_regs_struct *regs, bool at_exit)
{
	struct rec_vptrace *v = t->vp;
	bool sync = si->si_code > 0 && si->si_signo != SIGSTOP &&
		    (si->si_signo == SIGSEGV || si->si_signo == SIGBUS ||
		     si->si_signo == SIGFPE || si->si_signo == SIGILL ||
		     si->si_signo == SIGTRAP || si->si_signo == SIGSYS);

	(void)regs;
	if (!v || si->si_signo == SIGKILL)
		return false;
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
	hold(rec, t, VP_SIGNAL, trap_status(si->si_signo), at_exit && !sync);
	v->si = *si;
	if (v->attach_stop && si->si_signo == SIGSTOP) {
		v->attach_stop = false;
		v->si.si_code = SI_KERNEL;
		v->si.si_pid = 0;
		v->si.si_uid = 0;
	}
	return true;
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
		hold(rec, t, VP_ENTRY_INTERRUPT,
		     trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)), false);
		v->at_entry = true;
		return true;
	}
	if (!v->systrace || v->entry_passed)
		return false;
	hold(rec, t, VP_ENTRY, sysstop_status(v), false);
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
		hold(rec, t, VP_EXEC_EVENT, st, true);
		v->skipped_exit = skipped;
		return true;
	}
	if (v->systrace) {
		hold(rec, t, skipped ? VP_EXIT_CONT : VP_EXIT,
		     sysstop_status(v), true);
		v->skipped_exit = skipped;
		return true;
	}
	if (v->interrupt) {
		v->interrupt = false;
		hold(rec, t, skipped ? VP_EXIT_CONT : VP_EXIT,
		     trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)), true);
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
		hold(rec, t, VP_EXEC_EVENT,
		     trap_status(SIGTRAP | (PTRACE_EVENT_EXEC << 8)), true);
		return true;
	}
	if (v->seized) {
		if (!v->systrace)
			return false;
		hold(rec, t, VP_EXIT_CONT, sysstop_status(v), true);
		return true;
	}
	if (v->systrace) {
		v->exec_trap = true;
		hold(rec, t, VP_EXIT_CONT, sysstop_status(v), true);
		return true;
	}
	hold(rec, t, VP_EXEC_SIGTRAP, trap_status(SIGTRAP), true);
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
	hold(rec, t, VP_EXIT_CONT,
	     trap_status(SIGTRAP | (PTRACE_EVENT_EXIT << 8)), false);
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
	v->fork_event = trap_status(SIGTRAP | (ev << 8));
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
		hold(rec, t, VP_EXIT_CONT,
		     trap_status(SIGTRAP | (PTRACE_EVENT_STOP << 8)), false);
		return true;
	}
	hold(rec, t, VP_FIRST_SIGSTOP, trap_status(SIGSTOP), false);
	memset(&v->si, 0, sizeof(v->si));
	v->si.si_signo = SIGSTOP;
	v->si.si_code = SI_KERNEL;
	return true;
}

void rec_vptrace_gone(struct recorder *rec, struct rtask *t, int status)
{
	struct rtask *x, *tracer;

	if (t->vp) {
		tracer = task_of(rec, t->vp->tracer);
		/* a tracer that is not the parent hears of the exit first */
		if (tracer && t->exit_written && t->parent != tracer->t.tid &&
		    t->parent != tracer->tgid && t->tgid == t->t.tid &&
		    (WIFEXITED(status) || WIFSIGNALED(status))) {
			struct rec_vwait *w = vwait_of(tracer);

			if (w->nexits <
			    (int)(sizeof(w->exits) / sizeof(w->exits[0]))) {
				w->exits[w->nexits].tid = t->t.tid;
				w->exits[w->nexits].pgid = getpgid(t->t.tid);
				w->exits[w->nexits].status = status;
				w->nexits++;
			}
			kick_waits(rec, tracer->tgid);
			notify_tracer(tracer->tgid, t->t.tid,
				      WIFEXITED(status)	  ? CLD_EXITED
				      : WCOREDUMP(status) ? CLD_DUMPED
							  : CLD_KILLED,
				      WIFEXITED(status) ? WEXITSTATUS(status)
							: WTERMSIG(status));
		}
		detach(t);
	}
	/* a tracer's tracees go free (or die, with PTRACE_O_EXITKILL) */
	for (x = rec->tasks; x; x = x->next) {
		if (!x->vp || x->vp->tracer != t->tgid || t->tgid != t->t.tid)
			continue;
		if (x->vp->options & PTRACE_O_EXITKILL) {
			syscall(SYS_tgkill, x->tgid, x->t.tid, SIGKILL);
			detach(x);
			continue;
		}
		x->vp->systrace = false;
		x->vp->interrupt = false;
		if (x->vp->held)
			resume_tracee(rec, x,
				      x->vp->kind == VP_SIGNAL
					      ? x->vp->si.si_signo
					      : 0);
		if (x->vp)
			detach(x);
	}
	free(t->vw);
	t->vw = NULL;
	wake_waiters(rec);
}
