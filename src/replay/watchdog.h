/* The replay watchdog: a thread that notices when the replay makes no
 * progress and says why, instead of letting mrr wait for ever.
 *
 * The replayer waits for one task at a time (tracee_wait). A task that mrr
 * waits for and that neither runs nor uses CPU time for timeout_s seconds is
 * stuck: the kernel blocks it (a vfork parent whose child mrr holds, a
 * syscall that waits for something that will never come). The watchdog then
 * prints which task mrr waits for, at which event, what the kernel blocks it
 * in, and what every other task is doing; it then SIGKILLs the waited task so
 * that the replayer's wait returns, and watchdog_fired() turns true. A task
 * that keeps running user code is not stuck by this measure.
 */
#ifndef MRR_REPLAY_WATCHDOG_H
#define MRR_REPLAY_WATCHDOG_H

#include <stdbool.h>

struct replayer;

/* Starts the watchdog thread for rp (timeout_s 0: no watchdog). Returns 0
 * or -errno. The thread reads rp's task list only while the replayer is
 * blocked in tracee_wait. */
int watchdog_start(struct replayer *rp, unsigned timeout_s)
	__attribute__((warn_unused_result));
/* Stops and joins the thread; harmless when none was started. */
void watchdog_stop(void);
/* True once the watchdog has reported a stuck replay. */
bool watchdog_fired(void);

#endif
