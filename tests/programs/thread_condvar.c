/* thread_condvar: a bounded queue between two producers and two consumers
 * guarded by a mutex and two condition variables. Every item is consumed
 * once; the sums must match. */
#include "mrr_test.h"

#include <pthread.h>

#define ITEMS 500
#define QSIZE 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queue[QSIZE], head, count, done_producers;
static long consumed_sum[2], consumed_n[2];

static void *producer(void *arg)
{
	long base = (long)arg * ITEMS, i;

	for (i = 0; i < ITEMS; i++) {
		pthread_mutex_lock(&lock);
		while (count == QSIZE)
			pthread_cond_wait(&not_full, &lock);
		queue[(head + count) % QSIZE] = (int)(base + i);
		count++;
		pthread_cond_signal(&not_empty);
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	done_producers++;
	pthread_cond_broadcast(&not_empty);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *consumer(void *arg)
{
	long id = (long)arg;

	for (;;) {
		int v;

		pthread_mutex_lock(&lock);
		while (count == 0 && done_producers < 2)
			pthread_cond_wait(&not_empty, &lock);
		if (count == 0) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		v = queue[head];
		head = (head + 1) % QSIZE;
		count--;
		pthread_cond_signal(&not_full);
		pthread_mutex_unlock(&lock);
		consumed_sum[id] += v;
		consumed_n[id]++;
	}
}

int main(void)
{
	pthread_t p[2], c[2];
	long i, want = 0;

	mt_init();
	for (i = 0; i < 2; i++) {
		MT_CHECK(pthread_create(&c[i], NULL, consumer, (void *)i) == 0,
			 "consumer");
		MT_CHECK(pthread_create(&p[i], NULL, producer, (void *)i) == 0,
			 "producer");
	}
	for (i = 0; i < 2; i++) {
		pthread_join(p[i], NULL);
		pthread_join(c[i], NULL);
	}
	for (i = 0; i < 2 * ITEMS; i++)
		want += i;
	MT_CHECK(consumed_n[0] + consumed_n[1] == 2 * ITEMS, "%ld items",
		 consumed_n[0] + consumed_n[1]);
	MT_CHECK(consumed_sum[0] + consumed_sum[1] == want, "sum %ld",
		 consumed_sum[0] + consumed_sum[1]);
	printf("consumed %d items\n", 2 * ITEMS);
	mt_pass();
	return 0;
}
