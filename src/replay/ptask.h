/* Replayer-private state. */
#ifndef MRR_REPLAY_PTASK_H
#define MRR_REPLAY_PTASK_H

#include "core/page_around.h"
#include "core/tracee.h"
#include "mrr/trace.h"
#include "replay/replayer.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct ptask {
	struct tracee t; /* the live task */
	pid_t rec_tid;	 /* its tid in the recording */
	pid_t tgid;	 /* its process (thread group) id in the recording */
	bool threaded;	 /* a leader that created threads since its exec */
	bool dying;	 /* a thread of its process called exit_group */
	/* in seccomp strict mode (emulated, src/record/record_virt.c): a
	 * forbidden call of a thread that has others ends it alone */
	bool strict;
	/* a munmap narrowed around mrr's page, finished at its exit */
	struct page_around around;
	bool dead; /* reaped already: dead_status is its wait status */
	int dead_status;
	struct ptask *next;
	bool fresh;    /* its first (SIGSTOP) stop is still pending */
	bool stopped;  /* in a ptrace-stop we have not resumed */
	bool at_exit;  /* stopped at a syscall-exit stop */
	bool at_point; /* stopped at a replayed preemption point */
	/* stopped at the exit of a call that returned ERESTART*: resumed
	 * without a signal, it restarts the call as the kernel does when no
	 * signal is delivered (ptask_resume) */
	bool restart_pending;
	/* stopped at the seccomp stop of a call emulate() skipped, its result
	 * set (with rp->lazy_exit): the same registers as at its exit stop,
	 * and resuming with PTRACE_CONT goes on just the same, but a signal
	 * can be injected or a step taken only from the exit stop, which
	 * ptask_resume then reaches first */
	bool skip_exit;
	int resume_sig; /* signal to deliver when resumed */
	int expect_sig; /* a signal stop the caller waits for */
	/* an executed syscall (fork) whose exit stop is still to come */
	bool pending_exit;
	int64_t pending_result;
	uint64_t child_tid_addr; /* CLONE_CHILD_SETTID location in a child */
	pid_t child_tid_value;	 /* recorded tid to put there */
	uint64_t sbuf_addr;	 /* registered syscall buffer, or 0 */
	/* replay_run ran it to the stop of its next event already: the next
	 * ptask_next_stop returns held_status without resuming it */
	bool held;
	int held_status;
	/* stopped at the traced call its wrapper made for want of a record,
	 * where it blocked inside a buffered call at record (an MRR_EV_SCHED
	 * of reason MRR_SCHED_BUFFERED): ptask_resume answers that call with
	 * MRR_SYSCALLBUF_RETRY, so that the library looks for its records
	 * again (syscallbuf/abi.h) */
	bool sbuf_parked;
};

#define RECENT_EVENTS 10
/* Bytes of one line of the recent events (a described event). */
#define RECENT_EVENT_LEN 192

struct replayer {
	const struct replay_opts *o;
	mrr_trace_reader *r;
	const struct mrr_trace_info *info;
	struct ptask *tasks;
	struct mrr_event ev; /* the event being replayed */
	char recent[RECENT_EVENTS][RECENT_EVENT_LEN];
	unsigned nrecent;
	char tmpdir[256]; /* private copies of shared file mappings */
	int status;	  /* 0 or the MRR_EXIT_* code once stopped */
	/* emulated calls leave their task at the seccomp stop (skip_exit),
	 * saving its exit stop: set by plain `mrr replay` only, where every
	 * resume goes through ptask_resume (gdb and checkpoints resume and
	 * inject by themselves) */
	bool lazy_exit;
	char (*verified)[MRR_STORED_NAME_MAX]; /* stored files checked */
	size_t nverified;
	/* stored names that have a copy in tmpdir, and the recorded file
	 * (ident, 0: the name alone) each is a version of */
	struct file_copy {
		char name[MRR_STORED_NAME_MAX];
		uint32_t ident;
		bool loaded; /* the ident's copy holds this version */
	} * copies;
	size_t ncopies;
	struct file_paths *paths; /* recorded paths (file_names.h) */
	/* session (session.h) */
	bool have_next; /* ev is read but not replayed yet */
	uint8_t *extra; /* aligned copy of ev.extra */
	uint32_t extra_cap;
	uint64_t nreplayed; /* events fully replayed */
	uint64_t progress;  /* stops of the next event's task since */
	int progress_unit;  /* enum replay_unit */
	pid_t progress_tid;
	const struct replay_stop *want; /* during replay_run, or NULL */
	bool mem_hit;			/* a watched range was written */
	uint64_t mem_hit_addr;
	int mem_hit_bp;
	uint64_t exit_reported; /* seq + 1 of an exit event reported */
	int last_exit_status;
	/* output of events before this one was shown already (a session
	 * that went back re-runs them quietly) */
	uint64_t echo_from;
};

/* replayer.c */
struct ptask *ptask_find(struct replayer *rp, pid_t rec_tid);

/* process_vm_writev (replay_vmwrite.c): makes the recorded write into the
 * replayed target process. Returns 0, or -1 (diverged or malformed, with
 * rp->status set). */
int replay_vm_write(struct replayer *rp, struct ptask *t);
struct ptask *ptask_add(struct replayer *rp, pid_t rec_tid, pid_t live_tid);
/* Resumes t if stopped and waits for its next stop that matters (new-task
 * SIGSTOPs, pending fork exits and stray signals are handled inside).
 * Returns 0 and the wait status, or -1 after reporting. */
int ptask_next_stop(struct replayer *rp, struct ptask *t, int *status);
/* Reports a divergence at the current event and sets rp->status. */
void diverge(struct replayer *rp, struct ptask *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Writes an event's recorded memory into the task. */
/* Whether [addr, addr+len) of a recorded effect meets mrr's page: then it
 * reports a corrupt trace (status 65) and returns true. No recording has
 * such an effect (the recorder refuses them), and applying one would take
 * away the page that replay's injected syscalls run from. */
bool replay_refuse_mrr_page(struct replayer *rp, uint64_t addr, uint64_t len);
int apply_writes(struct replayer *rp, struct ptask *t,
		 const struct mrr_event *ev);
int stored_path(struct replayer *rp, const char *name, char *buf,
		size_t buflen);
/* One line for ev ("event N thread T of pid P: futex(...) = 0"); rp may
 * be NULL ("event N pid T: ..."). */
void describe_event(struct replayer *rp, const struct mrr_event *ev, char *buf,
		    size_t buflen);
/* How a user finds recorded task rec_tid: "thread T of pid P" when it is
 * one of several threads of process P, else "pid T" (always, for rp
 * NULL). Returns buf. */
const char *task_name(struct replayer *rp, pid_t rec_tid, char *buf,
		      size_t buflen);

/* Resumes t, when it is stopped, with request req (PTRACE_CONT,
 * PTRACE_SYSCALL, PTRACE_SINGLESTEP) and its pending signal, and marks it
 * running. A task gone meanwhile is not an error: the next wait reports its
 * death. Returns 0, or -1 after reporting a divergence. */
int ptask_resume(struct replayer *rp, struct ptask *t, int req);
/* t (pending_exit) stands at the exit stop of its fork: gives it the
 * recorded result and clears pending_exit. */
void ptask_finish_pending_exit(struct replayer *rp, struct ptask *t);
/* Writes the tid the recording gave t (CLONE_CHILD_SETTID) at its
 * child_tid_addr, if it has one. Returns 0 or -1. */
int ptask_set_child_tid(struct ptask *t);
/* Like ptask_next_stop with the ptrace request to resume with
 * (PTRACE_CONT or PTRACE_SINGLESTEP); ignores t->held. */
int ptask_advance(struct replayer *rp, struct ptask *t, int req, int *status);
/* The per-kind handlers: on return the event's task is stopped at the
 * start of its next event, or gone. */
void replay_exec(struct replayer *rp);
void replay_signal(struct replayer *rp, struct ptask *t);
void replay_rdtsc(struct replayer *rp, struct ptask *t);
void replay_exit(struct replayer *rp, struct ptask *t);
void remember(struct replayer *rp);
/* session.c: FNV-1a of the 512 bytes at rsp (what can be read) */
uint64_t replay_stack_hash(struct ptask *t, uint64_t rsp);
int replay_peek(struct replayer *rp);
void kill_all(struct replayer *rp);
/* sched.c */
/* MRR_EV_SCHED: brings the event's task to the syscall entry where it let
 * another thread run at record, and keeps it there. */
void replay_sched(struct replayer *rp, struct ptask *t);

/* At t's exit_group entry stop: when other threads of t's process live,
 * marks them all dying, lets t go into the call and returns true. */
bool replay_group_exit(struct replayer *rp, struct ptask *t);
/* Waits for the death of t, a thread of a dying process, without letting
 * it run user code (its leader's death comes after the others', which are
 * reaped first and kept in dead_status). Returns 0 with its wait status,
 * or -1 after reporting. */
int replay_reap_thread(struct replayer *rp, struct ptask *t, int *status);
/* Reaps every task of process tgid marked dying (an execve of one of its
 * threads kills them, and the kernel waits for the tracer to reap them
 * before the exec goes on), keeping each one's status for its exit event.
 * Returns 0, or -1 after reporting. */
int replay_reap_dying(struct replayer *rp, pid_t tgid);

/* replay_sbuf.c */
void replay_buffer(struct replayer *rp, struct ptask *t);
int replay_sbuf_check_consumed(struct replayer *rp, struct ptask *t);
int replay_sbuf_register(struct replayer *rp, struct ptask *t);
void replay_sbuf_no_probe(struct replayer *rp, struct ptask *t);

/* replay_syscall.c */
void replay_syscall(struct replayer *rp, struct ptask *t);
/* Continues a task from a seccomp stop through the syscall to its exit
 * stop. Returns 0 or -1 (reported). */
int run_to_exit(struct replayer *rp, struct ptask *t);
/* sched.c: t is sbuf_parked and about to be resumed: its traced call is
 * skipped with the result MRR_SYSCALLBUF_RETRY. Returns 0, or -1 after
 * reporting. */
int replay_sbuf_retry(struct replayer *rp, struct ptask *t);

#endif
