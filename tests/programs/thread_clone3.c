/* thread_clone3: clone3 called directly. (1) As fork (no flags, exit
 * signal SIGCHLD) with CLONE_PARENT_SETTID and CLONE_PIDFD: the child
 * returns 0, runs on a copy of the stack, and exits 5; the parent gets the
 * child's tid in parent_tid and a pidfd it polls. (2) With CLONE_VM |
 * CLONE_VFORK and a stack of its own (posix_spawn's shape): the child runs
 * a function that writes the parent's memory and exits through the raw
 * exit syscall. */
#include "mrr_test.h"

#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile int vm_child_wrote;

static long clone3_raw(struct clone_args *ca)
{
	return syscall(SYS_clone3, ca, sizeof(*ca));
}

/* clone3 with a new stack: the child cannot return through the C frame
 * it starts in, so it calls fn on the new stack and exits. */
static long clone3_fn(struct clone_args *ca, void (*fn)(void))
{
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "call *%[fn]\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "1:\n\t"
			 : "=a"(ret)
			 : "a"((long)SYS_clone3), "D"(ca),
			   "S"(sizeof(*ca)), [fn] "r"(fn)
			 : "rcx", "r11", "memory");
	return ret;
}

static void vm_child(void)
{
	vm_child_wrote = 1234;
}

int main(void)
{
	struct clone_args ca;
	int pidfd = -1, st;
	pid_t ptid = 0;
	long pid;
	struct pollfd pfd;
	size_t size = 64 * 1024;
	char *stack;

	mt_init();
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_PARENT_SETTID | CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	ca.parent_tid = (uint64_t)(uintptr_t)&ptid;
	ca.exit_signal = SIGCHLD;
	pid = clone3_raw(&ca);
	MT_CHECK(pid >= 0, "clone3: %s", strerror(errno));
	if (pid == 0)
		_exit(5);
	MT_CHECK(ptid == pid, "parent_tid %d, clone3 returned %ld", ptid, pid);
	MT_CHECK(pidfd >= 0, "no pidfd");
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	MT_CHECK(poll(&pfd, 1, 10000) == 1, "poll on the pidfd");
	MT_CHECK(waitpid((pid_t)pid, &st, 0) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5, "status 0x%x", st);
	close(pidfd);
	printf("clone3 as fork: child exited 5\n");

	stack = malloc(size);
	MT_CHECK(stack != NULL, "malloc");
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VM | CLONE_VFORK;
	ca.exit_signal = SIGCHLD;
	ca.stack = (uint64_t)(uintptr_t)stack;
	ca.stack_size = size;
	pid = clone3_fn(&ca, vm_child);
	MT_CHECK(pid > 0, "clone3 CLONE_VM|CLONE_VFORK: %s",
		 strerror((int)-pid));
	MT_CHECK(waitpid((pid_t)pid, &st, 0) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	MT_CHECK(vm_child_wrote == 1234, "the CLONE_VM child wrote %d",
		 vm_child_wrote);
	printf("clone3 CLONE_VM|CLONE_VFORK: the child wrote our memory\n");
	mt_pass();
	return 0;
}
