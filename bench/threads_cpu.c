/* threads_cpu [STEPS]: 4 threads each run STEPS (default 200,000,000) steps
 * of an integer hash with no syscall, then the main thread joins them and
 * prints the results. The CPU-bound workload of bench/threads.sh: serialised
 * threads can use one core only, so record and replay take about
 * min(4, cores) times the native time. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4

static long steps;
static unsigned long result[NTHREADS];

static void *spin(void *arg)
{
	long me = (long)arg;
	unsigned long x = 0x9e3779b97f4a7c15ul * (unsigned long)(me + 1);

	for (long i = 0; i < steps; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	result[me] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];

	steps = argc > 1 ? atol(argv[1]) : 200000000;
	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, spin, (void *)i) != 0) {
			fprintf(stderr, "threads_cpu: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		printf("thread %d: %016lx\n", i, result[i]);
	}
	return 0;
}
