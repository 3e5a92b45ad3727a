/* job_control_threads: a process with two running threads is stopped by
 * its parent (SIGSTOP) and continued (SIGCONT). A stop is complete only
 * once every thread has joined it, and mrr runs one thread of a process
 * at a time: the thread that waits for its turn must still get to run and
 * join the stop, or the parent's waitpid(WUNTRACED) waits for ever. Both
 * threads make syscalls in a loop until the parent kills the process.
 */
#include "mrr_test.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

static void *spin(void *arg)
{
	(void)arg;
	for (;;)
		getppid();
	return NULL;
}

int main(void)
{
	int st, up[2];
	pthread_t th;
	pid_t pid;
	char c;

	mt_init();
	MT_SYS(pipe(up));
	pid = MT_SYS(fork());
	if (pid == 0) {
		MT_SYS(setpgid(0, 0));
		MT_CHECK(pthread_create(&th, NULL, spin, NULL) == 0,
			 "pthread_create");
		MT_SYS(write(up[1], "r", 1));
		spin(NULL);
	}
	MT_CHECK(read(up[0], &c, 1) == 1, "child start");
	MT_SYS(kill(pid, SIGSTOP));
	MT_CHECK(MT_SYS(waitpid(pid, &st, WUNTRACED)) == pid, "waitpid");
	MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
		 "expected a stop by SIGSTOP, status %#x", st);
	printf("two-thread child stopped\n");
	MT_SYS(kill(pid, SIGCONT));
	MT_CHECK(MT_SYS(waitpid(pid, &st, WCONTINUED)) == pid, "waitpid");
	MT_CHECK(WIFCONTINUED(st), "expected continued, status %#x", st);
	printf("two-thread child continued\n");
	MT_SYS(kill(pid, SIGKILL));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		 "expected death by SIGKILL, status %#x", st);
	printf("two-thread child killed\n");
	mt_pass();
	return 0;
}
