/* The gdb server's state and the operations its packet handlers share.
 * Private to src/replay/gdb. */
#ifndef MRR_REPLAY_GDB_TARGET_H
#define MRR_REPLAY_GDB_TARGET_H

#include "replay/gdb/packet.h"
#include "replay/gdb/regs.h"
#include "replay/gdb/server.h"
#include "replay/ptask.h"
#include "replay/session.h"

#define GDB_MAX_BPS 64
/* events between the checkpoints a session takes as it goes forward */
#define GDB_CHECKPOINT_EVERY 5000

struct checkpoints;

/* A change gdb made to the task, undone before the replay goes on. */
struct gdb_undo {
	uint64_t addr;
	uint32_t len;
	uint8_t *old;
};

struct gdb_server {
	struct replayer rp;
	struct checkpoints *cps; /* NULL: every going back replays from the
				    start */
	uint64_t last_checkpoint;
	const struct replay_opts *o;
	const struct gdb_opts *g;
	struct gdb_conn c;
	pid_t tid; /* recorded tid of the thread gdb looks at (Hg, stops) */
	pid_t pid; /* recorded process id of the debugged process */
	struct replay_bp bps[GDB_MAX_BPS];
	size_t nbps;
	/* gdb's writes */
	bool regs_saved;
	struct gdb_regs saved_regs;
	struct gdb_undo *undo;
	size_t nundo;
	/* the last stop, for '?' */
	char last_stop[128];
	bool exited;
	uint64_t start_event; /* the earliest event reverse goes back to */
	bool start_held;      /* the start is the entry stop of that event */
	bool exec_events;     /* gdb understands exec stop replies */
	/* a reverse watchpoint stop shows the state before the write; going
	 * forward, the hit comes first */
	bool pending_hit;
	/* gdb_run looks for ^C (forward runs gdb asked for) */
	bool interruptible, interrupted;
	char pending_stop[128];
};

/* The task gdb debugs (NULL once it is gone). */
struct ptask *gdb_task(struct gdb_server *s);
/* Whether rec_tid is a live thread of the debugged process. */
bool gdb_thread_live(struct gdb_server *s, pid_t rec_tid);
/* Makes tid (when a live thread of the debugged process) the thread gdb
 * looks at; when the current one is gone, another live thread of it. */
void gdb_select(struct gdb_server *s, pid_t tid);
/* Registers as gdb sees them (a task held at a syscall's entry shows the
 * syscall instruction not yet run). Returns 0 or -1. */
int gdb_get_regs(struct gdb_server *s, struct gdb_regs *r);
int gdb_set_regs(struct gdb_server *s, const struct gdb_regs *r);
/* Undoes gdb's register and memory writes. */
void gdb_undo_all(struct gdb_server *s);
/* Formats the stop reply for why into buf. */
void gdb_stop_reply(struct gdb_server *s, const struct replay_stopped *why,
		    char *buf, size_t buflen);
/* Brings the session back to the boundary before event start (the first
 * task's first instruction when start is 1; held at that event's stop when
 * it is the -p start), from the nearest checkpoint before it (the start of
 * the trace at worst). Returns 0 or -1 (replay status set). */
int gdb_restart(struct gdb_server *s, uint64_t start);

/* replay_run for the server: takes checkpoints on the way. */
int gdb_run(struct gdb_server *s, const struct replay_stop *want,
	    struct replay_stopped *why);

/* Where -p PID / --onexec NAME start: sets tid, start_event and
 * start_held. Returns 0, or -1 when the recording has no such process
 * (message printed). */
int gdb_find_start(struct gdb_server *s);

/* libs.c: the loaded objects as qXfer:libraries-svr4 XML in out (at most
 * cap bytes, NUL-terminated); returns its length. */
size_t gdb_libraries_xml(struct gdb_server *s, char *out, size_t cap);

/* rev.c: reverse-continue and reverse-step; write the stop reply. */
void gdb_reverse_continue(struct gdb_server *s, char *reply, size_t len);
void gdb_reverse_step(struct gdb_server *s, char *reply, size_t len);

#endif
