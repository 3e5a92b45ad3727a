/* threads_bufcalls [CALLS]: 2 threads each make CALLS (default 300,000)
 * clock_gettime calls with a little arithmetic between them, then the main
 * thread joins them. Under mrr every call is buffered, so each thread runs
 * without a ptrace stop while the other waits for the slot: this measures
 * what the scheduler's switches between such threads cost
 * (bench/tracedcalls.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NTHREADS 2

static long calls;
static unsigned long result[NTHREADS];

static void *work(void *arg)
{
	long me = (long)arg;
	unsigned long x = 0x9e3779b97f4a7c15ul * (unsigned long)(me + 1);
	struct timespec ts;

	for (long i = 0; i < calls; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (int k = 0; k < 50; k++)
			x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ul +
			    (unsigned long)k;
	}
	result[me] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];

	calls = argc > 1 ? atol(argv[1]) : 300000;
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, work, (void *)i) != 0)
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	printf("%lx %lx\n", result[0], result[1]);
	return 0;
}
