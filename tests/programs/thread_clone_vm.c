/* thread_clone_vm: clone(CLONE_VM | SIGCHLD), a child that shares the
 * parent's memory but is a process of its own (no CLONE_THREAD), as
 * posix_spawn-like code and some runtimes make. The child fills a shared
 * array, makes syscalls of its own (getpid, write) and exits 7; the parent
 * waits for it and checks what it wrote. */
#include "mrr_test.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int shared[256];
static long child_pid_seen;

static int child(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 256; i++)
		shared[i] = i * 3;
	child_pid_seen = syscall(SYS_getpid);
	syscall(SYS_write, 1, "child of clone(CLONE_VM)\n", 25);
	return 7;
}

int main(void)
{
	size_t size = 256 * 1024;
	char *stack = malloc(size);
	int st, i;
	pid_t pid;

	mt_init();
	MT_CHECK(stack != NULL, "malloc");
	pid = clone(child, stack + size, CLONE_VM | SIGCHLD, NULL);
	MT_CHECK(pid > 0, "clone: %s", strerror(errno));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status 0x%x", st);
	MT_CHECK(child_pid_seen == pid, "the child saw pid %ld, not %d",
		 child_pid_seen, pid);
	for (i = 0; i < 256; i++)
		MT_CHECK(shared[i] == i * 3, "shared[%d] = %d", i, shared[i]);
	printf("the CLONE_VM child wrote our memory\n");
	mt_pass();
	return 0;
}
