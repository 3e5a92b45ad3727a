/* thread_create_join: pthread_create and pthread_join of four threads that
 * each fill their own part of a shared array and return a value, then a
 * mutex-protected counter that every thread increments 2000 times. The
 * replay must create the threads at their clone events and run each only
 * between its own events. */
#include "mrr_test.h"

#include <pthread.h>
#include <stdint.h>

#define NTHREADS 4
#define PER	 2000

static int parts[NTHREADS][64];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
	long id = (long)arg, i;

	for (i = 0; i < 64; i++)
		parts[id][i] = (int)(id * 100 + i);
	for (i = 0; i < PER; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return (void *)(id * 7);
}

int main(void)
{
	pthread_t th[NTHREADS];
	long i, j;

	mt_init();
	for (i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
			 "thread %ld", i);
	for (i = 0; i < NTHREADS; i++) {
		void *ret;

		MT_CHECK(pthread_join(th[i], &ret) == 0, "join %ld", i);
		MT_CHECK((long)ret == i * 7, "thread %ld returned %ld", i,
			 (long)ret);
	}
	for (i = 0; i < NTHREADS; i++)
		for (j = 0; j < 64; j++)
			MT_CHECK(parts[i][j] == i * 100 + j, "part %ld/%ld", i,
				 j);
	MT_CHECK(counter == NTHREADS * PER, "counter %ld", counter);
	printf("%d threads joined, counter %ld\n", NTHREADS, counter);
	mt_pass();
	return 0;
}
