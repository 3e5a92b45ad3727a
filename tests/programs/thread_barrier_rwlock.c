/* thread_barrier_rwlock: four threads go through a pthread barrier in ten
 * rounds; in each round one writer updates a table under a write lock and
 * the others read it under read locks, checking it is consistent. */
#include "mrr_test.h"

#include <pthread.h>

#define NTHREADS 4
#define ROUNDS	 10

static pthread_barrier_t barrier;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int table[16];
static int bad;

static void *worker(void *arg)
{
	long id = (long)arg;
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&barrier);
		if (r % NTHREADS == id) {
			pthread_rwlock_wrlock(&rw);
			for (i = 0; i < 16; i++)
				table[i] = r * 100 + i;
			pthread_rwlock_unlock(&rw);
		}
		pthread_barrier_wait(&barrier);
		pthread_rwlock_rdlock(&rw);
		for (i = 0; i < 16; i++)
			if (table[i] != r * 100 + i)
				__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];
	long i;

	mt_init();
	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
			 "create");
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	MT_CHECK(bad == 0, "%d inconsistent reads", bad);
	printf("%d rounds\n", ROUNDS);
	mt_pass();
	return 0;
}
