/* Private to src/record/vptrace*.c: the state of ptrace emulated for the
 * recorded program (vptrace.h) and the helpers its files share. */
#ifndef MRR_RECORD_VPTRACE_INT_H
#define MRR_RECORD_VPTRACE_INT_H

#include "record/rtask.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/user.h>

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
	bool at_point; /* held at a recorded preemption point (a signal) */
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

/* Counts the changes a waiting tracer may want to see (vptrace.c). */
extern unsigned long vp_gen;

uint64_t vp_ev_count(struct recorder *rec);
/* "PTRACE_PEEKDATA", or "request 0x..." for one the kernel does not know */
const char *vp_req_name(long req);
/* Stops the recording for t's ptrace call (exit 69): "...; what, so ..." */
void vp_refuse(struct recorder *rec, struct rtask *t, const char *what);
/* The recorded task tid that has not ended, or NULL. */
struct rtask *vp_task_of(struct recorder *rec, pid_t tid);
/* t's tracer side, made on first use. */
struct rec_vwait *vp_vwait_of(struct rtask *t);
/* Answers t's call (skipped, recorded): result, and len bytes of data
 * written at addr in t (EFAULT when addr is 0 or cannot be written). */
void vp_answer(struct recorder *rec, struct rtask *t, int64_t result,
	       uint64_t addr, const void *data, size_t len);
/* Tracers held in a wait make their call again (vp_gen moves on). */
void vp_wake_waiters(struct recorder *rec);
/* The threads of process tgid in a real wait are interrupted to look
 * again (vptrace_wait.c). */
void vp_kick_waits(struct recorder *rec, pid_t tgid);
/* t stops for its tracer with this wait status (vptrace.c). */
void vp_hold(struct recorder *rec, struct rtask *t, enum vp_stop kind,
	     int status, bool at_event);
int vp_trap_status(int code);
int vp_sysstop_status(const struct rec_vptrace *v);
/* The tracer lets held t go on, with signal sig (0: none). */
void vp_resume_tracee(struct recorder *rec, struct rtask *t, int sig);
/* The registers the tracer sees of held t. */
void vp_tracee_regs(const struct rtask *t, struct user_regs_struct *r);
bool vp_traced_by(const struct rtask *x, const struct rtask *tracer);
/* x has no tracer any more. */
void vp_detach(struct rtask *x);

#endif
