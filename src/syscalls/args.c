/* Which argument registers the kernel reads for one call. Most syscalls
 * read the table's count; a few read their later arguments only for some
 * values of an earlier one, and libc leaves whatever the registers held in
 * the others (prctl and fcntl are variadic in libc, and libc's mremap
 * passes on whatever r8 holds when MREMAP_FIXED or MREMAP_DONTUNMAP is
 * set). The replay compares only the registers counted here: the others
 * are not inputs of the call, and may differ between two runs of the same
 * program. mremap's fifth argument counts only with MREMAP_FIXED: with
 * MREMAP_DONTUNMAP alone it is a hint, whose effect is the recorded result
 * (the replay moves the mapping to the recorded address). */
#include "syscalls/table.h"

#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/sched.h>
#include <linux/futex.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <stdbool.h>

/* prctl: how many arguments (the option included) the option reads. An
 * option that requires its unused arguments to be 0 reads all five. */
static int prctl_args(uint64_t option)
{
	switch (option) {
	case PR_GET_DUMPABLE:
	case PR_GET_KEEPCAPS:
	case PR_GET_TIMING:
	case PR_GET_SECCOMP:
	case PR_GET_SECUREBITS:
	case PR_GET_TIMERSLACK:
	case PR_TASK_PERF_EVENTS_DISABLE:
	case PR_TASK_PERF_EVENTS_ENABLE:
	case PR_GET_FP_MODE:
		return 1;
	case PR_SET_PDEATHSIG:
	case PR_GET_PDEATHSIG:
	case PR_SET_DUMPABLE:
	case PR_GET_UNALIGN:
	case PR_SET_UNALIGN:
	case PR_SET_KEEPCAPS:
	case PR_GET_FPEMU:
	case PR_SET_FPEMU:
	case PR_GET_FPEXC:
	case PR_SET_FPEXC:
	case PR_SET_TIMING:
	case PR_SET_NAME:
	case PR_GET_NAME:
	case PR_GET_ENDIAN:
	case PR_SET_ENDIAN:
	case PR_CAPBSET_READ:
	case PR_CAPBSET_DROP:
	case PR_GET_TSC:
	case PR_SET_TSC:
	case PR_SET_SECUREBITS:
	case PR_SET_TIMERSLACK:
	case PR_SET_CHILD_SUBREAPER:
	case PR_GET_CHILD_SUBREAPER:
	case PR_GET_TID_ADDRESS:
	case PR_SET_FP_MODE:
	case PR_SET_PTRACER:
		return 2;
	case PR_SET_SECCOMP:
		return 3;
	}
	return 5;
}

/* fcntl commands that take no third argument. */
static bool fcntl_no_arg(uint64_t cmd)
{
	switch (cmd) {
	case F_GETFD:
	case F_GETFL:
	case F_GETOWN:
	case F_GETSIG:
	case F_GETLEASE:
	case F_GETPIPE_SZ:
	case F_GET_SEALS:
		return true;
	}
	return false;
}

/* futex: how many arguments the operation reads, counted from the first.
 * WAKE reads no timeout or second address, and libc's callers leave those
 * registers as they were (LTP's checkpoints diverged on "argument 5"). The
 * bitset operations read their last argument after an unused fifth one:
 * counting stops before it. */
static int futex_args(uint64_t op)
{
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAKE:
	case FUTEX_FD:
	case FUTEX_WAKE_BITSET:
		return 3;
	case FUTEX_UNLOCK_PI:
	case FUTEX_TRYLOCK_PI:
		return 2;
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case 13: /* FUTEX_LOCK_PI2 */
		return 4;
	case FUTEX_REQUEUE:
	case FUTEX_WAIT_REQUEUE_PI:
		return 5;
	}
	return 6;
}

/* clone (x86-64 order: flags, stack, parent tid, child tid, tls): glibc's
 * clone() is variadic, and a caller that passes no tls or tid addresses
 * leaves garbage in those registers (stress-ng's sigpipe stressor). Counted
 * from the first, so with CLONE_SETTLS the tid addresses count even when
 * unused. */
static int clone_args(uint64_t flags)
{
	if (flags & CLONE_SETTLS)
		return 5;
	if (flags & (CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID))
		return 4;
	if (flags & (CLONE_PARENT_SETTID | CLONE_PIDFD))
		return 3;
	return 2;
}

int mrr_syscall_args_used(long nr, const uint64_t args[6])
{
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(nr);

	if (!d)
		return 0;
	switch (nr) {
	case __NR_prctl:
		return prctl_args(args[0]);
	case __NR_mremap:
		return args[3] & MREMAP_FIXED ? 5 : 4;
	case __NR_clone:
		return clone_args(args[0]);
	case __NR_fcntl:
		return fcntl_no_arg(args[1]) ? 2 : 3;
	case __NR_open:
		return args[1] & (O_CREAT | __O_TMPFILE) ? 3 : 2;
	case __NR_futex:
		return futex_args(args[1]);
	case __NR_openat:
		return args[2] & (O_CREAT | __O_TMPFILE) ? 4 : 3;
	case __NR_sysfs: /* 1: a name; 2: an index and a buffer; 3: none */
		return args[0] == 1 ? 2 : args[0] == 2 ? 3 : 1;
	}
	return d->nargs;
}
