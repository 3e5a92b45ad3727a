/* threads_spin [ROUNDS]: two threads hand a flag back and forth ROUNDS times
 * (default 200) by spinning on an atomic word, with no syscall in the loop
 * (a pause instruction per turn, as spinlocks do). Under a recorder that
 * runs one thread at a time, every handoff needs a preemption of the
 * spinning thread, and its replay must find each preemption point again:
 * the spin-wait workload of bench/threads.sh. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic long flag; /* even: main's turn; odd: the other's */
static long rounds;

static void wait_for(long want)
{
	while (atomic_load_explicit(&flag, memory_order_acquire) != want)
		__builtin_ia32_pause();
}

static void *other(void *arg)
{
	(void)arg;
	for (long r = 0; r < rounds; r++) {
		wait_for(2 * r + 1);
		atomic_store_explicit(&flag, 2 * r + 2, memory_order_release);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	rounds = argc > 1 ? atol(argv[1]) : 200;
	if (pthread_create(&t, NULL, other, NULL) != 0) {
		fprintf(stderr, "threads_spin: pthread_create failed\n");
		return 1;
	}
	for (long r = 0; r < rounds; r++) {
		wait_for(2 * r);
		atomic_store_explicit(&flag, 2 * r + 1, memory_order_release);
	}
	pthread_join(t, NULL);
	printf("%ld spin handoffs, flag %ld\n", rounds, atomic_load(&flag));
	return 0;
}
