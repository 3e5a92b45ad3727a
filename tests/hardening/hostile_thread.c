/* hostile_thread: prints a line, creates a thread that spin-waits without
 * any syscall on a flag while it counts its turns (the count stays in a
 * register, so the thread's state never repeats), sleeps until the thread
 * has started, then 10 ms more, and sets the flag. mrr runs one thread at
 * a time and preempts a spinning thread only where its state repeats (a
 * point the replay finds again), so under mrr the counting thread gets the
 * running slot (at the sleep at the latest) and holds it for ever: the
 * recording must stop with exit 69 and one line saying why (after
 * MRR_SPIN_LIMIT seconds), and commit a trace of everything before (see
 * refused.sh). Natively it prints PASS. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int flag, started;
static volatile unsigned long turns;

static void *worker(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE))
		n++;
	turns = n;
	return NULL;
}

int main(void)
{
	pthread_t t;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("creating a thread\n");
	err = pthread_create(&t, NULL, worker, NULL);
	if (err) {
		fprintf(stderr, "FAIL: pthread_create: %s\n", strerror(err));
		return 1;
	}
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(10000);
	__atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
	err = pthread_join(t, NULL);
	if (err) {
		fprintf(stderr, "FAIL: pthread_join: %s\n", strerror(err));
		return 1;
	}
	printf("the thread ran\nPASS\n");
	return 0;
}
