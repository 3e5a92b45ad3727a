/* thread_leader_exit: the main thread calls pthread_exit while two threads
 * keep running; they hand a counter back and forth through a mutex and a
 * condition variable, write, and the last one prints PASS. The process
 * ends (status 0) when its last thread exits; the leader's death is
 * reported after theirs. */
#include "mrr_test.h"

#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn, done;

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < 50; i++) {
		pthread_mutex_lock(&mu);
		while (turn % 2 != id)
			pthread_cond_wait(&cv, &mu);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	printf("worker %ld done\n", id);
	pthread_mutex_lock(&mu);
	if (++done == 2) {
		MT_CHECK(turn == 100, "turn %d", turn);
		mt_pass();
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(void)
{
	pthread_t th;
	long i;

	mt_init();
	for (i = 0; i < 2; i++)
		MT_CHECK(pthread_create(&th, NULL, worker, (void *)i) == 0,
			 "create %ld", i);
	printf("main thread exits\n");
	pthread_exit(NULL);
}
