/* threads_futex [HANDOFFS]: 4 threads pass a token round a ring HANDOFFS
 * times (default 100,000). Each thread sleeps in FUTEX_WAIT on its own word
 * until the previous one sets it and wakes it: every handoff is one wake and
 * one wait, the pattern of a mutex or condition variable under contention.
 * The futex handoff workload of bench/threads.sh. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 4

static _Atomic int turn[NTHREADS]; /* 1: this thread holds the token */
static long handoffs;
static _Atomic long passed;

static void futex(_Atomic int *word, int op, int val)
{
	syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void *ring(void *arg)
{
	int me = (int)(long)arg;
	int next = (me + 1) % NTHREADS;

	for (;;) {
		while (atomic_load(&turn[me]) == 0)
			futex(&turn[me], FUTEX_WAIT, 0);
		atomic_store(&turn[me], 0);
		long n = atomic_fetch_add(&passed, 1);
		/* The last pass still hands on: the others must see the end. */
		atomic_store(&turn[next], 1);
		futex(&turn[next], FUTEX_WAKE, 1);
		if (n >= handoffs)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];

	handoffs = argc > 1 ? atol(argv[1]) : 100000;
	atomic_store(&turn[0], 1);
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, ring, (void *)i) != 0) {
			fprintf(stderr,
				"threads_futex: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	printf("%ld handoffs among %d threads\n", handoffs, NTHREADS);
	return 0;
}
