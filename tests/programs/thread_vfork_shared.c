/* thread_vfork_shared: a vfork child runs on its parent's memory while the
 * parent waits in the kernel, and the parent's other threads keep running
 * (posix_spawn from a threaded program, Go's os/exec). Here the child sets
 * a flag that another thread of the parent polls between syscalls. At
 * record the child once ran at the same time as that thread, so the
 * thread saw the flag after a number of polls that the replay, which runs
 * each task only between its own events, did not repeat: it diverged. The
 * child now runs one at a time with the parent's threads. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile int flag;
static volatile int poller_started;

static void *poller(void *arg)
{
	unsigned long polls = 0;

	(void)arg;
	poller_started = 1;
	while (!flag) {
		syscall(SYS_getppid);
		polls++;
	}
	return (void *)polls;
}

int main(void)
{
	pthread_t t;
	void *polls;
	int st;

	mt_init();
	for (volatile int round = 0; round < 3; round++) {
		pid_t pid;

		flag = 0;
		poller_started = 0;
		MT_CHECK(pthread_create(&t, NULL, poller, NULL) == 0, "thread");
		while (!poller_started)
			syscall(SYS_getpid);
		pid = vfork();
		MT_CHECK(pid >= 0, "vfork");
		if (pid == 0) {
			for (int i = 0; i < 300; i++)
				syscall(SYS_getppid);
			flag = 1;
			for (int i = 0; i < 300; i++)
				syscall(SYS_getppid);
			_exit(7);
		}
		MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
		MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status 0x%x",
			 st);
		MT_CHECK(pthread_join(t, &polls) == 0, "join");
		printf("round %d: the thread saw the child's flag\n", round);
	}
	mt_pass();
	return 0;
}
