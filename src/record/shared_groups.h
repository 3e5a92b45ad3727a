/* Which processes share memory that one of them can write, so that the
 * thread scheduler (threads.c) runs them one at a time as it runs the
 * threads of a process: then a store one makes between two syscalls and a
 * load the other makes happen in the order the trace records, and the
 * replay repeats it (issue 10: a child polling a flag its parent raises). */
#ifndef MRR_RECORD_SHARED_GROUPS_H
#define MRR_RECORD_SHARED_GROUPS_H

#include <stdbool.h>

struct recorder;
struct rtask;

/* Whether a child that parent forks now (without CLONE_VM) inherits memory
 * it shares with parent and that either can write: a MAP_SHARED mapping
 * that is writable, or of shared memory that another view may write
 * (anonymous MAP_SHARED, memfd, SysV shm, POSIX shm), other than mrr's own
 * page. Reads /proc/PID/maps of parent; false when it cannot. */
bool rec_shares_writable(struct recorder *rec, struct rtask *parent);

/* After rec_shares_writable() put child in parent's group: the child maps
 * the shared objects its parent mapped (for rec_shared_merge). */
void rec_shared_fork(struct rtask *parent, struct rtask *child);

/* At the entry of t's syscall, t holding its group's slot (threads.c):
 * when the call maps shared memory (mmap MAP_SHARED of a file, memfd or
 * POSIX shm; shmat) that a process of another group maps too, and one of
 * the two views may write, or writes into such a file (write, pwrite,
 * writev, pwritev, ftruncate, fallocate through an fd), moves that group's
 * tasks into t's. Returns
 * true when one of the moved tasks runs user code meanwhile: it keeps the
 * slot (runner), and t must wait at its call like a task that blocked. */
bool rec_shared_merge(struct recorder *rec, struct rtask *t);

#endif
