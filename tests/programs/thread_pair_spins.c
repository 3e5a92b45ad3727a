/* thread_pair_spins: two threads that meet at a pair of atomic counters
 * the way LTP's fuzzy sync does (include/tst_fuzzy_sync.h in LTP, read for
 * the shape only): each bumps the other's counter, then spins until its own
 * catches up, counting its turns in memory (a counter incremented in place:
 * the loop's registers and stack are the same at every turn). Between
 * meetings each makes a syscall, the race LTP lines up, between two reads
 * of the clock (calls of mrr's syscall buffer) into the shared pair.
 *
 * mrr runs one thread at a time, so every wait needs the spinning thread
 * preempted in user code; the point is in a loop that changes memory but
 * no register, and the replay must stop the thread at the recorded turn
 * (the turn count goes into the output). The counts vary natively; the
 * replay must print the recorded ones. */
/* mrr-test: timeout=240 */
#include "mrr_test.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#define ROUNDS 60

struct pair {
	int a_cntr, b_cntr, exit;
	int spins_a, spins_b;
	uint64_t hash;
	struct timespec a_start, a_end, b_start, b_end;
};

static struct pair pair;

static int load(int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* Bumps the other's counter and waits for ours to reach it, counting the
 * turns in *spins (in place: no register holds the count). */
static inline void pair_wait(int *our, int *other, int *spins)
{
	__atomic_add_fetch(other, 1, __ATOMIC_SEQ_CST);
	while (load(our) < load(other) && !load(&pair.exit))
		(*spins)++;
}

static void mix(uint64_t v)
{
	pair.hash = (pair.hash ^ v) * 0x100000001b3ull;
}

/* Thread B runs until A raises exit, as fuzzy sync's: its second wait is
 * the last thing in its loop, so that both ways out of that wait jump back
 * to the loop's top, before the wait. */
static void *thread_b(void *arg)
{
	(void)arg;
	for (;;) {
		pair_wait(&pair.b_cntr, &pair.a_cntr, &pair.spins_b);
		if (load(&pair.exit))
			break;
		clock_gettime(CLOCK_MONOTONIC_RAW, &pair.b_start);
		syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC_RAW, &pair.b_end);
		pair_wait(&pair.b_cntr, &pair.a_cntr, &pair.spins_b);
	}
	return NULL;
}

int main(void)
{
	pthread_t b;

	mt_init();
	pair.hash = 0xcbf29ce484222325ull;
	MT_CHECK(pthread_create(&b, NULL, thread_b, NULL) == 0, "create");
	for (int i = 0; i < ROUNDS; i++) {
		pair_wait(&pair.a_cntr, &pair.b_cntr, &pair.spins_a);
		clock_gettime(CLOCK_MONOTONIC_RAW, &pair.a_start);
		syscall(SYS_getpid);
		clock_gettime(CLOCK_MONOTONIC_RAW, &pair.a_end);
		pair_wait(&pair.a_cntr, &pair.b_cntr, &pair.spins_a);
		mix((uint64_t)pair.spins_a << 32 | (uint32_t)pair.spins_b);
	}
	__atomic_store_n(&pair.exit, 1, __ATOMIC_SEQ_CST);
	MT_CHECK(pthread_join(b, NULL) == 0, "join");
	MT_CHECK(pair.a_cntr == 2 * ROUNDS + 1 && pair.b_cntr == 2 * ROUNDS,
		 "a %d b %d", pair.a_cntr, pair.b_cntr);
	/* the counts vary natively: the replay must print the recorded ones */
	printf("spins a %d b %d hash %016llx\n", pair.spins_a, pair.spins_b,
	       (unsigned long long)pair.hash);
	mt_pass();
	return 0;
}
