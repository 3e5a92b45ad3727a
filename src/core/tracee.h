/* Operations on a ptrace-stopped task, shared by the recorder and replayer:
 * registers, memory, and syscalls injected into the task.
 *
 * remote_* values are addresses in the task; local_* in mrr. All functions
 * require the task to be in a ptrace-stop. Return 0 or -errno.
 */
#ifndef MRR_CORE_TRACEE_H
#define MRR_CORE_TRACEE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* Where mrr maps its own page in every tracee (replay scratch space and the
 * syscall buffer's untraced syscall instruction). Far from where the kernel
 * places mappings top-down, so it does not change the program's layout. */
#define MRR_PAGE_ADDR 0x700000000000ull
#define MRR_PAGE_SIZE 0x4000ull
/* Offset in the page of `syscall; ret`, used for untraced syscalls. */
#define MRR_PAGE_UNTRACED_SYSCALL 0x0
/* Offset of `syscall; ret` used for syscalls mrr injects (always traced). */
#define MRR_PAGE_TRACED_SYSCALL 0x10
#define MRR_PAGE_SCRATCH	0x1000 /* scratch bytes for injected syscalls */

struct tracee {
	pid_t tid;
	int mem_fd; /* /proc/tid/mem, -1 until opened */
};

int tracee_open_mem(struct tracee *t) __attribute__((warn_unused_result));
void tracee_close_mem(struct tracee *t);

int tracee_get_regs(struct tracee *t, struct user_regs_struct *regs)
	__attribute__((warn_unused_result));
int tracee_set_regs(struct tracee *t, const struct user_regs_struct *regs)
	__attribute__((warn_unused_result));

/* Reads len bytes at remote_addr. Returns bytes read (may be short at an
 * unmapped page) or -errno. */
ssize_t tracee_read(struct tracee *t, uint64_t remote_addr, void *local_buf,
		    size_t len);
/* Reads exactly len bytes or fails with -EFAULT. */
int tracee_read_all(struct tracee *t, uint64_t remote_addr, void *local_buf,
		    size_t len) __attribute__((warn_unused_result));
/* Writes exactly len bytes (through page protections) or fails. */
int tracee_write_all(struct tracee *t, uint64_t remote_addr,
		     const void *local_buf, size_t len)
	__attribute__((warn_unused_result));
/* Reads a NUL-terminated string of at most buflen-1 bytes. */
int tracee_read_str(struct tracee *t, uint64_t remote_addr, char *buf,
		    size_t buflen) __attribute__((warn_unused_result));

/* Runs one syscall in the stopped task and restores its registers after.
 * With use_page, the syscall instruction in the mrr page is used (the page
 * must be mapped); otherwise the two bytes at the task's rip are borrowed for
 * a syscall instruction and put back. Stores the return value in *ret. Must
 * not be called at a syscall-entry or seccomp stop (finish that syscall
 * first). Signals that arrive meanwhile are discarded. */
int tracee_inject_syscall(struct tracee *t, int use_page, long nr,
			  const uint64_t args[6], int64_t *ret)
	__attribute__((warn_unused_result));

/* Maps mrr's page (MRR_PAGE_ADDR, `syscall; ret` at both syscall offsets)
 * into the task, which must be stopped right after an exec. The same call
 * at record and replay, so both address spaces hold it. */
int tracee_map_mrr_page(struct tracee *t) __attribute__((warn_unused_result));

/* Waits for the next stop of exactly this task (blocking), returning the raw
 * wait status. While it waits, tracee_waiting holds the task's tid and the
 * wait's start, for a watchdog thread (tid 0: not waiting). Returns -EINTR
 * once tracee_wait_cancel is set (by a signal handler: a signal that
 * interrupts the wait finds it), so that Ctrl-C or SIGTERM end a wait for a
 * task that never stops. */
int tracee_wait(struct tracee *t, int *status)
	__attribute__((warn_unused_result));

struct tracee_wait_state {
	_Atomic int tid;	    /* the task waited for, or 0 */
	_Atomic unsigned long gen;  /* changes with every wait */
	_Atomic long long start_ns; /* CLOCK_MONOTONIC when it began */
};
extern struct tracee_wait_state tracee_waiting;

/* Set from a signal handler (mrr record's SIGINT/SIGTERM, installed without
 * SA_RESTART): tracee_wait gives up with -EINTR. */
extern volatile sig_atomic_t tracee_wait_cancel;

/* Register access by syscall-argument index 0..5. */
uint64_t regs_arg(const struct user_regs_struct *r, int i);
void regs_set_arg(struct user_regs_struct *r, int i, uint64_t v);

#endif
