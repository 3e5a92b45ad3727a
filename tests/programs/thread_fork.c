/* thread_fork: a second thread forks while the main thread waits for it
 * in pthread_join. The child (a copy of the forking thread alone) uses
 * malloc, reads a pipe its parent thread writes to, and exits with a
 * status computed from what it read; the forking thread checks it. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/wait.h>

static long shared_value = 41;

static void *worker(void *arg)
{
	int fds[2], st;
	pid_t pid;
	long v = 0;

	(void)arg;
	MT_SYS(pipe(fds));
	pid = MT_SYS(fork());
	if (pid == 0) {
		char *p = malloc(64);

		close(fds[1]);
		if (!p || read(fds[0], &v, sizeof(v)) != sizeof(v))
			_exit(100);
		snprintf(p, 64, "child of a thread read %ld\n", v);
		if (write(1, p, strlen(p)) < 0)
			_exit(101);
		_exit((int)(v + shared_value) & 0x7f);
	}
	close(fds[0]);
	v = 1;
	MT_SYS(write(fds[1], &v, sizeof(v)));
	close(fds[1]);
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 42, "status 0x%x", st);
	return NULL;
}

int main(void)
{
	pthread_t th;

	mt_init();
	MT_CHECK(pthread_create(&th, NULL, worker, NULL) == 0, "create");
	MT_CHECK(pthread_join(th, NULL) == 0, "join");
	printf("the thread's child exited 42\n");
	mt_pass();
	return 0;
}
