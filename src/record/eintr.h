/* Calls that mrr itself would cut short with EINTR.
 *
 * rt_sigtimedwait, epoll_wait, epoll_pwait and epoll_pwait2 return -EINTR
 * whenever their task wakes before the timeout with nothing to return. Under
 * ptrace a signal the program ignores is not discarded when sent (the tracer
 * may want to see it): it wakes the task, stops it for mrr, and mrr drops it; a
 * PTRACE_INTERRUPT wakes it too. Natively neither happens, and the call waits
 * on. So at the exit of such a call with -EINTR and no signal pending that the
 * program would see, mrr makes the call again, for the time left of its
 * timeout, and records only the last one. */
#ifndef MRR_RECORD_EINTR_H
#define MRR_RECORD_EINTR_H

#include <stdbool.h>

struct recorder;
struct rtask;

/* At a syscall's entry (t->nr and t->args set): notes when a call that can
 * be made again started, unless it is such a call made again. */
void rec_eintr_entry(struct rtask *t);

/* At a syscall's exit stop, before it is recorded. Returns true when t
 * was set back to make its call again and resumed (nothing to record);
 * false to record the exit as usual (a timeout mrr had shortened is put
 * back first, and the result is the timeout's, -EAGAIN or 0, when the time
 * ran out). */
bool rec_eintr_again(struct recorder *rec, struct rtask *t);

#endif
