/* thread_fork_exec: a second thread forks; the child execs /bin/echo while
 * the main thread blocks in pthread_join; the forking thread waits for the
 * child and checks its status. */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/wait.h>

static void *worker(void *arg)
{
	pid_t pid;
	int st;

	(void)arg;
	pid = fork();
	MT_CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		execl("/bin/echo", "echo", "child of a thread", (char *)NULL);
		_exit(127);
	}
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
	return NULL;
}

int main(void)
{
	pthread_t th;

	mt_init();
	MT_CHECK(pthread_create(&th, NULL, worker, NULL) == 0, "create");
	MT_CHECK(pthread_join(th, NULL) == 0, "join");
	printf("the thread's child ran\n");
	mt_pass();
	return 0;
}
