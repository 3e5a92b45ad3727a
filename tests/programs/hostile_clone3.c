/* hostile_clone3: creates processes with the raw clone3 syscall, which no
 * libc wrapper hides: a plain one (exit_signal SIGCHLD, no CLONE_VM, no
 * CLONE_VFORK) reaped with waitpid, and one with CLONE_PIDFD reaped with
 * waitid(P_PIDFD). The children talk back through a pipe, so the parent
 * checks they ran, in their own address space, with their own pid. */
#include "mrr_test.h"

#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static int shared_value = 1;

static long clone3_raw(struct clone_args *args)
{
	return syscall(SYS_clone3, args, sizeof(*args));
}

/* The child: raw syscalls only, as after a raw clone glibc's view of the
 * process (its cached tid) belongs to the parent. */
static void child(int out, int tag)
{
	long me = syscall(SYS_getpid);
	long msg[2] = {me, tag};

	shared_value = 1000; /* must not reach the parent */
	if (syscall(SYS_write, out, msg, sizeof(msg)) != sizeof(msg))
		syscall(SYS_exit_group, 90);
	syscall(SYS_exit_group, tag);
}

static void check_report(int in, long pid, int tag)
{
	long msg[2];

	MT_CHECK(MT_SYS(read(in, msg, sizeof(msg))) == sizeof(msg),
		 "short report from child %d", tag);
	MT_CHECK(msg[0] == pid, "child %d says its pid is %ld, clone3 said %ld",
		 tag, msg[0], pid);
	MT_CHECK(msg[1] == tag, "child %d sent tag %ld", tag, msg[1]);
	MT_CHECK(shared_value == 1, "the child's store reached the parent");
}

int main(void)
{
	struct clone_args args;
	siginfo_t si;
	int p[2], st, pidfd = -1;
	long pid;

	mt_init();
	MT_SYS(pipe(p));

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	pid = clone3_raw(&args);
	if (pid == 0)
		child(p[1], 7);
	MT_CHECK(pid > 0, "clone3 failed: %s", strerror(errno));
	check_report(p[0], pid, 7);
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	printf("clone3 child exited 7\n");

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = SIGCHLD;
	pid = clone3_raw(&args);
	if (pid == 0)
		child(p[1], 9);
	MT_CHECK(pid > 0, "clone3(CLONE_PIDFD) failed: %s", strerror(errno));
	MT_CHECK(pidfd >= 0, "no pidfd written");
	check_report(p[0], pid, 9);
	memset(&si, 0, sizeof(si));
	MT_SYS(waitid((idtype_t)P_PIDFD, pidfd, &si, WEXITED));
	MT_CHECK(si.si_pid == pid && si.si_code == CLD_EXITED &&
			 si.si_status == 9,
		 "waitid: pid %d code %d status %d", si.si_pid, si.si_code,
		 si.si_status);
	MT_SYS(close(pidfd));
	printf("clone3(CLONE_PIDFD) child exited 9, reaped through its "
	       "pidfd\n");
	mt_pass();
	return 0;
}
