/* ptrace emulated for the recorded program (vptrace.c).
 *
 * mrr is the real tracer of every recorded task, and a task has one
 * tracer, so a recorded program that traces one of its own tasks (strace,
 * gdb, a crash reporter, a test harness) gets a virtual relationship
 * instead: its tracer's ptrace requests and waits are answered by mrr and
 * recorded as emulated calls, and the tracee is held in one of mrr's own
 * ptrace-stops wherever the kernel would stop it for its tracer. The
 * replay feeds the recorded answers back; the tracee's own events (its
 * syscalls, the signals it really gets) are in its stream as always. What
 * is not emulated stops the recording (exit 69) with a sentence naming
 * the request.
 *
 * Every function takes a task holding its group's slot, at the stop named.
 */
#ifndef MRR_RECORD_VPTRACE_H
#define MRR_RECORD_VPTRACE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/user.h>

struct recorder;
struct rtask;

/* At the entry of t's ptrace call: answers (and records) it, or stops the
 * recording. t is resumed, or held when the recording stopped. */
void rec_vptrace_call(struct recorder *rec, struct rtask *t);

/* At the entry of a wait4 or waitid of t: true when it was answered here
 * (a virtual tracee's stop or exit, recorded as an emulated call). False
 * when the call runs; when it could wait for a virtual tracee, it runs
 * with WNOHANG added, and rec_vptrace_wait_exit decides at its exit. */
bool rec_vptrace_wait_entry(struct recorder *rec, struct rtask *t);
/* At the exit stop of any traced call of t, before its event is written:
 * true when that wait had nothing to report and the program did not ask
 * WNOHANG: t is then set back to make the call again (nothing is
 * recorded) and held until one of its virtual tracees stops or a task
 * ends. Also true when t is a tracee whose blocking call mrr interrupted
 * for PTRACE_INTERRUPT: t is set back to make it again and held. */
bool rec_vptrace_wait_exit(struct recorder *rec, struct rtask *t);

/* In rec_signal_stop, for a task with a virtual tracer, at the stop of
 * the signal si (already restored if mrr re-sent it), regs its registers,
 * at_exit whether no user code ran since its last event: true when the
 * stop was handled here (held for the tracer: at once after an event or
 * at a fault, else at a preemption point, as preempt.h places a signal,
 * or at the next syscall exit when there is none). */
bool rec_vptrace_signal(struct recorder *rec, struct rtask *t,
			const siginfo_t *si, struct user_regs_struct *regs,
			bool at_exit);
/* preempt.c placed t's asynchronous signal si at a point it just wrote
 * (t stands there, regs): t is held there for its tracer; a signal the
 * tracer passes on is delivered at that point. */
void rec_vptrace_point(struct recorder *rec, struct rtask *t,
		       const siginfo_t *si,
		       const struct user_regs_struct *regs);
/* At any signal-delivery stop of t, with its siginfo: a SIGCHLD mrr sent
 * t's process for a virtual tracee gets the siginfo the kernel would have
 * sent (si and the task's are changed). */
void rec_vptrace_sigchld(struct rtask *t, siginfo_t *si);
/* At the entry of a traced syscall (registers read): true when t is held
 * at a syscall-entry stop for its tracer (PTRACE_SYSCALL). */
bool rec_vptrace_entry(struct recorder *rec, struct rtask *t);
/* After t's syscall event is written, before it is resumed to user code:
 * true when t is held at a syscall-exit (or PTRACE_INTERRUPT) stop.
 * skipped: the call was skipped at its entry stop (its exit would be a
 * plain PTRACE_CONT). */
bool rec_vptrace_exit(struct recorder *rec, struct rtask *t, bool skipped);
/* Whether t wants a stop at its next syscall's exit (so a self-signal's
 * delivery stop must not stand for the exit). */
bool rec_vptrace_wants_exit(const struct rtask *t);
/* After t's exec event: true when t is held at the exec's stop for its
 * tracer (PTRACE_EVENT_EXEC, or the SIGTRAP of a non-seized tracee). */
bool rec_vptrace_exec(struct recorder *rec, struct rtask *t);
/* At the entry of t's exit or exit_group: true when t is held at a
 * PTRACE_EVENT_EXIT stop for its tracer. */
bool rec_vptrace_exit_event(struct recorder *rec, struct rtask *t);
/* At a fork event of t, its new task child known (not running yet): when
 * t's tracer follows this kind of new task (PTRACE_O_TRACEFORK, VFORK,
 * CLONE), child gets the same tracer and stops before it runs
 * (rec_vptrace_first_stop), and t stops for the event at the call's
 * exit. */
void rec_vptrace_fork(struct recorder *rec, struct rtask *t,
		      struct rtask *child);
/* A new task's first stop, once it may run: true when it is held there
 * for its tracer. */
bool rec_vptrace_first_stop(struct recorder *rec, struct rtask *t);
/* t ends (status: its wait status) or is removed: its tracer is told, its
 * tracees are let go, waiting tracers wake. */
void rec_vptrace_gone(struct recorder *rec, struct rtask *t, int status);

#endif
