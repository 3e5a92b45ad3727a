/* thread_pair_handoffs: two threads hand a turn back and forth many times
 * through a pair of atomic counters, spinning (no syscall, no pause) while
 * they wait, as LTP's fuzzy sync does for thousands of iterations; each
 * makes a syscall in its turn.
 *
 * mrr runs one thread at a time, so each wait can end only after mrr
 * switches threads in user code. Found by the spin probe alone, a switch
 * costs the probe's delay (5 ms of spinning, then breakpoint stops), and
 * the 6,000 waits here take longer to record than the test's time; a
 * thread that comes back to a loop mrr saw it spin in is switched out at
 * its first turn there. The turns alternate (B's, then A's), which the
 * output's hash shows. */
/* Natively each wait needs the other thread on a core: beside other tests
 * a wait can cost a scheduler slice (CI saw the native run pass 24 s).
 * mrr-test: timeout=60 serial=1 */
#include "mrr_test.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#define ROUNDS 3000

static int a_cntr, b_cntr;
static uint64_t hash = 0xcbf29ce484222325ull;

static int load(int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* Bumps the other's counter and spins until ours reaches it. */
static inline void pair_wait(int *our, int *other)
{
	__atomic_add_fetch(other, 1, __ATOMIC_SEQ_CST);
	while (load(our) < load(other))
		;
}

static void mix(uint64_t v)
{
	hash = (hash ^ v) * 0x100000001b3ull;
}

static void *thread_b(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pair_wait(&b_cntr, &a_cntr);
		MT_CHECK(syscall(SYS_getppid) > 0, "getppid");
		mix(2 * (uint64_t)i);
		pair_wait(&b_cntr, &a_cntr);
	}
	return NULL;
}

int main(void)
{
	pthread_t b;

	mt_init();
	MT_CHECK(pthread_create(&b, NULL, thread_b, NULL) == 0, "create");
	for (int i = 0; i < ROUNDS; i++) {
		pair_wait(&a_cntr, &b_cntr);
		/* B's turn: it mixes; A waits for it to finish */
		pair_wait(&a_cntr, &b_cntr);
		MT_CHECK(syscall(SYS_getpid) > 0, "getpid");
		mix(2 * (uint64_t)i + 1);
	}
	MT_CHECK(pthread_join(b, NULL) == 0, "join");
	MT_CHECK(a_cntr == 2 * ROUNDS && b_cntr == 2 * ROUNDS, "a %d b %d",
		 a_cntr, b_cntr);
	printf("%d rounds, turns hash %016llx\n", ROUNDS,
	       (unsigned long long)hash);
	mt_pass();
	return 0;
}
