/* thread_exec_nonleader: a thread that is not the leader calls execve while
 * the main thread blocks in pthread_join and a third thread waits on a
 * condition variable. The kernel ends the main and the third thread,
 * and the exec'ing thread takes over the process's pid (PTRACE_EVENT_EXEC
 * reports the old tid). The new image (this program again, with argument
 * "after PID") checks that its pid is the one the process had before, then
 * execs once more from the leader while a new thread waits ("final"). */
#include "mrr_test.h"

#include <pthread.h>
#include <sys/syscall.h>

static char self[4096];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting;

static void *sleeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	waiting = 1;
	pthread_cond_broadcast(&cv);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}
static char pidarg[32];

static void *worker(void *arg)
{
	char *argv[] = {self, "after", pidarg, NULL};

	(void)arg;
	MT_CHECK(syscall(SYS_gettid) != getpid(), "the worker is the leader");
	printf("worker execs\n");
	execv(self, argv);
	MT_CHECK(0, "execv: %s", strerror(errno));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	ssize_t n;

	mt_init();
	if (argc == 3 && !strcmp(argv[1], "after")) {
		long before = strtol(argv[2], NULL, 10);

		MT_CHECK(getpid() == before, "pid %d, before the exec %ld",
			 getpid(), before);
		MT_CHECK(syscall(SYS_gettid) == getpid(), "tid %ld",
			 (long)syscall(SYS_gettid));
		printf("after the exec: same pid, one thread\n");
		/* now the leader execs while another thread waits */
		MT_CHECK(pthread_create(&th, NULL, sleeper, NULL) == 0,
			 "create");
		pthread_mutex_lock(&mu);
		while (!waiting)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		MT_CHECK(n > 0, "readlink: %s", strerror(errno));
		self[n] = 0;
		execl(self, self, "final", argv[2], (char *)NULL);
		MT_CHECK(0, "execl: %s", strerror(errno));
	}
	if (argc == 3 && !strcmp(argv[1], "final")) {
		MT_CHECK(getpid() == strtol(argv[2], NULL, 10), "pid %d",
			 getpid());
		printf("the leader exec'd with a thread waiting\n");
		mt_pass();
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	MT_CHECK(n > 0, "readlink: %s", strerror(errno));
	self[n] = 0;
	snprintf(pidarg, sizeof(pidarg), "%d", getpid());
	MT_CHECK(pthread_create(&th, NULL, sleeper, NULL) == 0, "create");
	pthread_mutex_lock(&mu);
	while (!waiting)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	MT_CHECK(pthread_create(&th, NULL, worker, NULL) == 0, "create");
	pthread_join(th, NULL);
	MT_CHECK(0, "pthread_join returned");
	return 1;
}
