/* A replay session: the replayer as something that can stop between and
 * inside events (src/replay/LOOP.md). `mrr replay` runs a session to the
 * end with nothing wanted; the gdb server (src/replay/gdb/) and checkpoints
 * drive it with stop conditions.
 *
 * Not thread-safe: one thread drives a session (the watchdog only reads
 * tracee_waiting). */
#ifndef MRR_REPLAY_SESSION_H
#define MRR_REPLAY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct replayer;
struct replay_opts;
struct ptask;

/* Where a session stands. `event` is the number of events fully replayed
 * (the seq of the next event to replay). `progress` counts how far the
 * task of the next event has run towards it since then, in stops of
 * `unit`: 0 and REPLAY_AT_EVENT when it has not run yet (it sits where
 * its previous event left it). Inside an event, `regs` and `stack_hash`
 * identify the place exactly (a breakpoint can be hit many times between
 * two events; the registers and the stack near rsp tell the hits apart),
 * and replay_run can come back to it (struct replay_stop.to). */
enum replay_unit {
	REPLAY_AT_EVENT = 0, /* at the event boundary */
	REPLAY_HITS,	     /* breakpoint/watchpoint hits since `event` */
	REPLAY_STEPS,	     /* single steps since `event` */
};

struct replay_pos {
	uint64_t event;
	uint64_t progress;
	enum replay_unit unit;
	pid_t tid; /* recorded tid of the task that ran (inside an event) */
	struct user_regs_struct regs; /* its registers there */
	/* of the 512 bytes at regs.rsp; 0 in replay_stop.to: registers
	 * alone (the kernel's signal frames keep the last trap's number,
	 * which breakpoints change) */
	uint64_t stack_hash;
};

/* Breakpoints and watchpoints. Software ones are int3 bytes present in the
 * task's memory only while it runs between events (never while stopped,
 * never across a fork); hardware ones use the task's debug registers
 * (at most 4 in total). */
enum replay_bp_type {
	REPLAY_BP_SW = 0,    /* int3 at addr */
	REPLAY_BP_HW = 1,    /* execution breakpoint in a debug register */
	REPLAY_WATCH_W = 2,  /* data write */
	REPLAY_WATCH_R = 3,  /* data read (reported as access) */
	REPLAY_WATCH_RW = 4, /* data read or write */
};

struct replay_bp {
	enum replay_bp_type type;
	uint64_t addr;
	uint64_t len; /* watchpoints: 1, 2, 4 or 8, aligned */
};

/* What replay_run stops at. Zero-initialised means "nothing": run to the
 * end of the trace. */
struct replay_stop {
	/* stop before replaying the event with this seq (0: no such stop;
	 * use REPLAY_NO_EVENT to make that explicit) */
	uint64_t before_event;
	/* recorded tid the breakpoints and the step apply to; 0: none */
	pid_t tid;
	/* recorded process (thread group) whose every task the breakpoints,
	 * watchpoints, `to` and report_exit apply to; 0: tid alone. The step
	 * is tid's only. */
	pid_t pid;
	const struct replay_bp *bps;
	size_t nbps;
	/* single-step `tid` once: runs the trace forward until `tid` is the
	 * task that moves, then one instruction (a syscall instruction
	 * completes its event) */
	bool step;
	/* stop when the session reaches this position (an inside-event
	 * position found by register match at to->regs.rip), or NULL */
	const struct replay_pos *to;
	/* stop when `tid` execs, or exits as the last task of its process
	 * (of `pid` when set) */
	bool report_exit;
};

#define REPLAY_NO_EVENT 0

enum replay_why {
	REPLAY_STOP_END = 0,	/* end of the trace (see rp status) */
	REPLAY_STOP_EVENT,	/* before before_event */
	REPLAY_STOP_BREAKPOINT, /* a software/hardware breakpoint */
	REPLAY_STOP_WATCH,	/* a watchpoint (debug register or a write
				   the replay applied: `syscall` true) */
	REPLAY_STOP_STEP,	/* the single step completed */
	REPLAY_STOP_POS,	/* `to` reached */
	REPLAY_STOP_EXIT,	/* tid exited */
	REPLAY_STOP_EXEC,	/* tid exec'd */
	REPLAY_STOP_ERROR,	/* divergence or bad trace: rp status set */
};

struct replay_stopped {
	enum replay_why why;
	pid_t tid;	 /* recorded tid of the task that stopped */
	int bp;		 /* index into want->bps, or -1 */
	uint64_t addr;	 /* breakpoint address or watched address hit */
	bool syscall;	 /* the watch hit is the replay's write of event */
	uint64_t event;	 /* the event that wrote it, when syscall */
	int exit_status; /* REPLAY_STOP_EXIT: wait status */
};

/* Opens the trace of opts and prepares a session at event 0, no task yet.
 * Returns 0 or an MRR_EXIT_* code (message printed). */
int replay_open(struct replayer *rp, const struct replay_opts *opts);

/* Kills every replayed task and frees the session. The end-of-trace check
 * (a task still running at the end of a complete trace) is made by
 * replay_finish. */
void replay_close(struct replayer *rp);

/* After replay_run stopped at REPLAY_STOP_END: the end-of-trace checks
 * `mrr replay` makes. Returns the session's final MRR_EXIT_* status. */
int replay_finish(struct replayer *rp);

/* Replays exactly one event (the task of the event must be where its
 * previous event left it, or inside the event at a position replay_run
 * reported). Returns 1 when an event was replayed, 0 at the end of the
 * trace, -1 when the session stopped (divergence, bad trace: rp status). */
int replay_step(struct replayer *rp);

/* Runs the session until one of want's conditions holds (want NULL:
 * nothing wanted). Fills *why. Returns 0, or -1 with why->why ==
 * REPLAY_STOP_ERROR. Only the task of the next event ever moves. */
int replay_run(struct replayer *rp, const struct replay_stop *want,
	       struct replay_stopped *why);

/* Runs the task of the next event to that event's stop (a syscall's
 * entry, a signal, an rdtsc trap) without replaying the event, and holds
 * it there; want's breakpoints (if any, for its tid) may stop it first.
 * Returns 1 when held, 2 when one of want's conditions stopped it (why
 * filled; call again to go on), 0 when the event has no such stop (or at
 * the end), -1 on error. */
int replay_hold(struct replayer *rp, const struct replay_stop *want,
		struct replay_stopped *why);

/* The task held at its next event's stop, or NULL. */
struct ptask *replay_held_task(struct replayer *rp);

/* The session's position now. */
void replay_position(const struct replayer *rp, struct replay_pos *pos);

/* The status (0 or MRR_EXIT_*) of a session. */
int replay_status(const struct replayer *rp);

/* Every write the replay makes into a task's memory on the program's
 * behalf (a recorded kernel write, a madvise's dropped range, an executed
 * munmap or mremap, a file write into a mapped copy) is reported here, so
 * that watchpoints see syscalls as memory writes. event is the seq. */
void replay_mem_written(struct replayer *rp, struct ptask *t, uint64_t addr,
			uint64_t len, uint64_t event);

#endif
