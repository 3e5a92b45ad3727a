/* For spin_memory.sh: a thread that spins waiting for a flag while it
 * counts in memory, its registers and stack the same at every turn (the
 * ambiguous case of preemption points, README "Threaded programs"). The
 * main thread sleeps (the spinner runs meanwhile, and mrr preempts it when
 * the sleep ends), then raises the flag; the spinner returns its count,
 * which the program prints. The count varies natively; a replay must print
 * the recorded one or report a divergence, never print another.
 * Argument: where the counter lives: global or heap. (A counter in TLS or
 * on the spinner's stack is in the stack hash of the point: that loop is not
 * ambiguous, and mrr cannot preempt it.) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int flag;
static uint64_t global_count;
static uint64_t *heap_count;
static const char *where;

/* Increments *p in place (one instruction: no register holds the count)
 * until the flag is up. */
__attribute__((noinline)) static void spin_count(uint64_t *p)
{
	while (!flag)
		__asm__ volatile("incq %0" : "+m"(*p));
}

static void *spinner(void *arg)
{
	(void)arg;
	if (strcmp(where, "global") == 0) {
		spin_count(&global_count);
		return (void *)(uintptr_t)global_count;
	}
	spin_count(heap_count);
	return (void *)(uintptr_t)*heap_count;
}

int main(int argc, char **argv)
{
	struct timespec nap = {0, 30 * 1000 * 1000};
	pthread_t t;
	void *count;

	if (argc != 2 || (strcmp(argv[1], "global") &&
			  strcmp(argv[1], "heap") && strcmp(argv[1], "tls"))) {
		fprintf(stderr, "usage: %s global|heap|tls\n", argv[0]);
		return 2;
	}
	where = argv[1];
	heap_count = calloc(64, sizeof(*heap_count));
	if (!heap_count || pthread_create(&t, NULL, spinner, NULL) != 0) {
		fprintf(stderr, "cannot start the spinner\n");
		return 1;
	}
	nanosleep(&nap, NULL);
	flag = 1;
	if (pthread_join(t, &count) != 0) {
		fprintf(stderr, "join failed\n");
		return 1;
	}
	/* fixed width: a replay that counted less writes as many bytes */
	printf("%s counter: %020llu\n", where,
	       (unsigned long long)(uintptr_t)count);
	return 0;
}
