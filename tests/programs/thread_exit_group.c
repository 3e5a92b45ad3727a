/* thread_exit_group: threads that end in different ways. One thread exits
 * (pthread_exit) while two others block, one in a pipe read and one in a
 * futex wait (a condition variable); then the main thread calls exit()
 * (exit_group) while those two are still blocked and a fourth thread is
 * computing: every thread must get its exit at replay. */
#include "mrr_test.h"

#include <pthread.h>

static int fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int spinning_started;

static void *quitter(void *arg)
{
	(void)arg;
	pthread_exit((void *)42);
}

static void *reader(void *arg)
{
	char c;

	(void)arg;
	(void)!read(fds[0], &c, 1); /* nobody writes: blocked at exit */
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

static void *computer(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	for (;;) {
		x++;
		if ((x & 0xfffff) == 0)
			getppid(); /* a syscall now and then */
	}
	return NULL;
}

int main(void)
{
	pthread_t q, r, w, c;
	void *ret;

	mt_init();
	MT_SYS(pipe(fds));
	MT_CHECK(pthread_create(&q, NULL, quitter, NULL) == 0, "quitter");
	MT_CHECK(pthread_create(&r, NULL, reader, NULL) == 0, "reader");
	MT_CHECK(pthread_create(&w, NULL, waiter, NULL) == 0, "waiter");
	MT_CHECK(pthread_join(q, &ret) == 0 && ret == (void *)42, "join");
	MT_CHECK(pthread_create(&c, NULL, computer, NULL) == 0, "computer");
	usleep(20000);
	printf("exiting with threads blocked and running\n");
	mt_pass();
	exit(0);
}
