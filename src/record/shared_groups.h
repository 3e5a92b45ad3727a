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

#endif
