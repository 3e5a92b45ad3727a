/* thread_sem_tls: a semaphore hands a token between three threads in a
 * ring (sem_post / sem_wait), and each thread keeps a thread-local counter
 * (__thread) whose value and address differ between threads. */
#include "mrr_test.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>

#define N     3
#define TURNS 200

static sem_t sems[N];
static __thread long mine = 5;
static long totals[N];
static uintptr_t addrs[N];
static int order[N * TURNS], norder;

static void *worker(void *arg)
{
	long id = (long)arg;
	int i;

	addrs[id] = (uintptr_t)&mine;
	for (i = 0; i < TURNS; i++) {
		sem_wait(&sems[id]);
		mine += id + 1;
		order[norder++] = (int)id;
		sem_post(&sems[(id + 1) % N]);
	}
	totals[id] = mine;
	return NULL;
}

int main(void)
{
	pthread_t th[N];
	long i;

	mt_init();
	for (i = 0; i < N; i++)
		sem_init(&sems[i], 0, i == 0);
	for (i = 0; i < N; i++)
		MT_CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0,
			 "create");
	for (i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < N; i++) {
		MT_CHECK(totals[i] == 5 + TURNS * (i + 1), "total %ld: %ld", i,
			 totals[i]);
		MT_CHECK(addrs[i] != addrs[(i + 1) % N], "same tls address");
	}
	for (i = 0; i < N * TURNS; i++)
		MT_CHECK(order[i] == i % N, "turn %ld went to %d", i, order[i]);
	MT_CHECK(mine == 5, "main's copy %ld", mine);
	printf("%d turns in order\n", N * TURNS);
	mt_pass();
	return 0;
}
