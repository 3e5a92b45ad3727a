/* Which syscalls may wait for another task: the recorder's thread scheduler
 * (src/record/threads.c) lets another thread of the process run while one
 * waits in such a call. A call missing here that blocks anyway is found by
 * the scheduler's stall check (/proc/TID/stat), only later. */
#include "syscalls/table.h"

#include <sys/syscall.h>

static bool futex_waits(uint64_t op)
{
	switch (op & 0x7f) { /* without FUTEX_PRIVATE_FLAG, CLOCK_REALTIME */
	case 0:		     /* FUTEX_WAIT */
	case 6:		     /* FUTEX_LOCK_PI */
	case 9:		     /* FUTEX_WAIT_BITSET */
	case 11:	     /* FUTEX_WAIT_REQUEUE_PI */
	case 13:	     /* FUTEX_LOCK_PI2 */
		return true;
	}
	return false;
}

bool mrr_syscall_may_block(long nr, const uint64_t args[6])
{
	switch (nr) {
	case SYS_futex:
		return futex_waits(args[1]);
	case SYS_fcntl:
		/* F_SETLKW, F_OFD_SETLKW */
		return args[1] == 7 || args[1] == 38;
	case SYS_futex_waitv:
	case SYS_read:
	case SYS_readv:
	case SYS_recvfrom:
	case SYS_recvmsg:
	case SYS_recvmmsg:
	case SYS_poll:
	case SYS_ppoll:
	case SYS_select:
	case SYS_pselect6:
	case SYS_epoll_wait:
	case SYS_epoll_pwait:
	case SYS_epoll_pwait2:
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
	case SYS_pause:
	case SYS_rt_sigsuspend:
	case SYS_rt_sigtimedwait:
	case SYS_wait4:
	case SYS_waitid:
	case SYS_accept:
	case SYS_accept4:
	case SYS_connect:
	case SYS_msgrcv:
	case SYS_msgsnd:
	case SYS_semop:
	case SYS_semtimedop:
	case SYS_flock:
	case SYS_io_getevents:
	case SYS_io_pgetevents:
	case SYS_mq_timedreceive:
	case SYS_mq_timedsend:
	case SYS_sched_yield: /* it asks for another thread to run */
		return true;
	}
	return false;
}
