/* thread_vfork_return: a threaded program's vfork parent writes memory
 * right after its child's exec lets it out of the kernel, and another
 * thread writes the same memory between two of its syscalls. This is Go's
 * os/exec under its GC or sysmon: syscall.runtime_AfterFork resets the
 * goroutine's stack guard after the vfork, while preemptone on another
 * thread sets it to stackPreempt, and whichever write comes last decides
 * whether the goroutine is preempted at its next call (real/go_build
 * diverged in about 1 run in 30 that way).
 *
 * At record the parent ran from its clone's exit to the entry of its next
 * syscall before the child's exec was in the trace, was held there, and
 * the other thread got the slot without a sched event: at record the
 * parent's write came before the thread's, at replay (which runs the
 * parent's code only right before its next event) after it. The parent
 * then reads the memory and makes a syscall of its own only when it finds
 * the thread's mark, so the replay diverges when the order differs. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define ROUNDS 150

extern char **environ;

static volatile int mark;
static volatile int stop;

/* raw syscalls: traced stops of their own whatever the syscall buffer does */
static long raw2(long nr, long a, long b)
{
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b)
			 : "rcx", "r11", "memory");
	return r;
}

static void *marker(void *arg)
{
	struct timespec ts = {0, 20 * 1000};

	(void)arg;
	while (!stop) {
		raw2(SYS_nanosleep, (long)&ts, 0);
		mark = 1; /* the write between two syscalls */
	}
	return NULL;
}

int main(void)
{
	char *argv[] = {"true", NULL};
	pthread_t t;
	int round, st;

	mt_init();
	MT_CHECK(pthread_create(&t, NULL, marker, NULL) == 0, "thread");
	for (round = 0; round < ROUNDS; round++) {
		pid_t pid = vfork();

		MT_CHECK(pid >= 0, "vfork: %s", strerror(errno));
		if (pid == 0) {
			execve("/bin/true", argv, environ);
			_exit(127);
		}
		mark = 0; /* the parent's write, right after the vfork */
		raw2(SYS_getpid, 0, 0);
		if (mark)
			raw2(SYS_getppid, 0, 0); /* the thread's came after */
		MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
		MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x",
			 st);
	}
	stop = 1;
	MT_CHECK(pthread_join(t, NULL) == 0, "join");
	printf("%d rounds of vfork and exec beside a writing thread\n", ROUNDS);
	mt_pass();
	return 0;
}
