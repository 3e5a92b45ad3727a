/* Counting executions of one instruction of a task without stopping it:
 * a perf breakpoint event (PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X) counts in
 * the kernel, one debug exception per execution but no ptrace stop. With a
 * period N, the N-th execution also sends BPCOUNT_SIGNAL to the task,
 * which then stops (signal-delivery-stop) with rip at the instruction,
 * before it runs. Works for unprivileged users on their own processes with
 * perf_event_paranoid up to 2 (user-space only counting).
 *
 * Also the CPU-time slice: a task-clock software event that sends
 * BPCOUNT_SIGNAL after a given CPU time of the task.
 *
 * Each counter takes one of the task's four debug registers (shared with
 * hwbp.c). Functions return 0 or -errno. */
#ifndef MRR_CORE_BPCOUNT_H
#define MRR_CORE_BPCOUNT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The signal the kernel sends at a counter's overflow; mrr suppresses it
 * (the program never sees it). */
#define BPCOUNT_SIGNAL SIGSTKFLT

struct bpcount {
	int fd; /* -1: closed */
	uint64_t addr;
	pid_t tid;
};

/* Counts executions of the instruction at addr in task tid (user mode),
 * from now. period 0: counts only; otherwise the period-th execution
 * signals the task (see above). The address is one of mrr's breakpoints
 * for owntrap.h, from now until a while after the close. */
int bpcount_open(struct bpcount *c, pid_t tid, uint64_t addr, uint64_t period)
	__attribute__((warn_unused_result));
int bpcount_read(const struct bpcount *c, uint64_t *count)
	__attribute__((warn_unused_result));
/* Sets the count back to 0. */
int bpcount_reset(const struct bpcount *c) __attribute__((warn_unused_result));
void bpcount_close(struct bpcount *c);

/* Opens a CPU-time slice of task tid, disabled; *fd gets it. */
int cpuslice_open(int *fd, pid_t tid) __attribute__((warn_unused_result));
/* Signals the task once it has run ns of CPU time from now. */
int cpuslice_arm(int fd, uint64_t ns) __attribute__((warn_unused_result));
int cpuslice_disarm(int fd) __attribute__((warn_unused_result));

/* The task's CPU time (task-clock, user and kernel), counting from now:
 * cpuclock_read gives the nanoseconds since the open. */
int cpuclock_open(int *fd, pid_t tid) __attribute__((warn_unused_result));
int cpuclock_read(int fd, uint64_t *ns) __attribute__((warn_unused_result));

/* Whether a signal-delivery-stop's siginfo is the overflow of fd. */
bool bpcount_is_overflow(const siginfo_t *si, int fd);

#endif
