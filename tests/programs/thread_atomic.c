/* thread_atomic: four threads increment a shared counter without locks,
 * with a plain read-modify-write (racy on purpose) and with an atomic add.
 * Natively the racy count varies; the replay must print the recorded one
 * (tests/e2e/thread_atomic_replays.sh replays one recording 20 times). */
#include "mrr_test.h"

#include <pthread.h>
#include <sched.h>

#define NTHREADS 4
#define PER	 200000

static volatile long racy;
static long atomic;

static void *worker(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < PER; i++) {
		racy = racy + 1;
		__atomic_add_fetch(&atomic, 1, __ATOMIC_RELAXED);
		if (i % 50000 == 0)
			sched_yield();
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];
	long i;

	mt_init();
	for (i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, NULL) == 0,
			 "create");
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	MT_CHECK(atomic == NTHREADS * PER, "atomic %ld", atomic);
	MT_CHECK(racy >= 1 && racy <= NTHREADS * PER, "racy %ld", racy);
	printf("racy count %ld\n", racy);
	mt_pass();
	return 0;
}
