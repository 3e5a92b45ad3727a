/* Checkpoints of a replay session, and going back to them: the basis of
 * reverse execution (src/replay/LOOP.md, point 7).
 *
 * A checkpoint is taken at an event boundary. Every replayed process gets
 * an injected fork(); the forked copy stays stopped, untouched, and holds
 * the process's memory through copy-on-write pages. What fork does not
 * keep is saved beside it: each task's registers and replayer state, the
 * contents of memory shared between processes (MAP_SHARED anonymous
 * mappings, which copy and live process both see), and the replay's
 * private copies of files mapped shared (tmpdir), which later replayed
 * writes change. Restoring kills the live tasks, forks each copy again (so
 * the checkpoint stays reusable), puts back registers, shared memory, file
 * copies and replayer state, and seeks the trace reader to the event.
 *
 * Where a fork cannot capture the state, no checkpoint is taken and the
 * reason is given: a process with several threads (fork copies only the
 * calling thread), a vfork child that still shares its parent's memory, a
 * task stopped with a signal to deliver (its siginfo would be lost), more
 * shared memory than CHECKPOINT_MAX_SHARED. The start of the replay (event
 * 0) is always available: restoring it re-creates the session from scratch
 * (no process yet), and checkpoint_goto() then replays forward; that is the
 * fallback whenever no fork checkpoint comes before the wanted event.
 *
 * Not thread-safe; the thread that drives the session calls these.
 */
#ifndef MRR_REPLAY_CHECKPOINT_H
#define MRR_REPLAY_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct replayer;
struct checkpoint;
struct checkpoints;

/* Shared memory and file copies one checkpoint may save, in bytes. */
#define CHECKPOINT_MAX_SHARED (256ull << 20)
/* Fork checkpoints kept by default. */
#define CHECKPOINT_DEFAULT_MAX 8

/* checkpoints_new() flags */
#define CHECKPOINT_RESTART_ONLY 0x1u /* never fork: every restore restarts */

/* Creates the checkpoint set of session rp (which it borrows), holding at
 * most max fork checkpoints (0: CHECKPOINT_DEFAULT_MAX) besides the start.
 * When a new one would exceed max, one is dropped so that the kept ones
 * thin out exponentially towards the past (dense near the newest). Returns
 * NULL when out of memory. */
struct checkpoints *checkpoints_new(struct replayer *rp, unsigned max,
				    unsigned flags);

/* Drops every checkpoint (killing the forked copies) and frees s. Accepts
 * NULL. Call before the session is closed. */
void checkpoints_free(struct checkpoints *s);

/* Takes a checkpoint at the session's position, which must be an event
 * boundary with no divergence. Returns 0 and the checkpoint in *out (owned
 * by s; valid until dropped), -EAGAIN when a task is between two of its
 * stops or must deliver a signal (take one at a later event),
 * -ENOTSUP (threads, vfork), -EFBIG (shared memory), -EIO when a task
 * would not fork; checkpoints_why_not() says which in one sentence. A
 * checkpoint at the event of an existing one returns that one. */
int checkpoint_take(struct checkpoints *s, struct checkpoint **out)
	__attribute__((warn_unused_result));

/* Why the last checkpoint_take() failed ("" after a success). */
const char *checkpoints_why_not(const struct checkpoints *s);

/* The kept checkpoint with the greatest event <= event; the start (event
 * 0) when there is none. Never NULL. */
struct checkpoint *checkpoint_nearest_before(struct checkpoints *s,
					     uint64_t event);

/* Brings the session back to cp: afterwards it stands at cp's event
 * boundary exactly as it stood when cp was taken, and replaying forward
 * checks every event as the first time did. Program output is echoed
 * again as events replay. Returns 0, or an MRR_EXIT_* code when the
 * session could not be restored (message printed; the session is then
 * unusable). cp stays valid and can be restored again. */
int checkpoint_restore(struct checkpoints *s, struct checkpoint *cp)
	__attribute__((warn_unused_result));

/* Restores the nearest checkpoint at or before event and replays forward
 * to event (the program's output of the events replayed again is not
 * echoed a second time). Returns 0, or the session's MRR_EXIT_* status
 * when it stopped on the way (divergence, or the trace ends before event:
 * MRR_EXIT_USAGE). */
int checkpoint_goto(struct checkpoints *s, uint64_t event)
	__attribute__((warn_unused_result));

/* Drops cp: its forked copies are killed and its saved state freed. The
 * start cannot be dropped (ignored), nor NULL. */
void checkpoint_drop(struct checkpoints *s, struct checkpoint *cp);

/* The event boundary of cp: the number of events replayed before it. */
uint64_t checkpoint_event(const struct checkpoint *cp);

/* Number of kept checkpoints, the start included. */
size_t checkpoints_count(const struct checkpoints *s);

/* For measurements: writes the live pids of cp's forked copies into pids
 * (at most n) and returns how many cp holds (0 for the start), and the
 * bytes of shared memory and file copies it saved in *saved_bytes. */
size_t checkpoint_copies(const struct checkpoint *cp, pid_t *pids, size_t n,
			 uint64_t *saved_bytes);

#endif
