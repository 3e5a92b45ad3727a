/* thread_spinlock: threads that wait for each other by spinning, with no
 * syscall in the wait. mrr runs one thread at a time, so each such wait
 * needs the recorder to preempt the spinning thread in user code, and the
 * replay to stop it at the same point (issue 12).
 *  - four threads take a pthread_spin_lock in turn; a holder sleeps inside
 *    now and then, so that the others spin on the held lock;
 *  - two threads hand an atomic flag back and forth, spinning on a plain
 *    load (no pause: the loop's registers never change);
 *  - the same with a pause loop of a few turns between loads, so that the
 *    spin's state comes back only after several turns.
 * The order in which the threads took the lock goes into a hash that the
 * program prints: it varies natively, and the replay must print the
 * recorded one. */
#include "mrr_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define NTHREADS    4
#define LOCKS	    600 /* lock acquisitions per thread */
#define SLEEP_EVERY 50
#define ROUNDS	    40 /* flag handoffs per direction */

static pthread_spinlock_t lock;
static long held_by = -1;  /* protected by lock */
static uint64_t order = 1; /* protected by lock: FNV-1a of the owners */
static long total;	   /* protected by lock */

static void *locker(void *arg)
{
	long me = (long)arg;
	struct timespec nap = {0, 20000};

	for (long i = 0; i < LOCKS; i++) {
		pthread_spin_lock(&lock);
		MT_CHECK(held_by == -1, "thread %ld got the lock held by %ld",
			 me, held_by);
		held_by = me;
		order = (order ^ (uint64_t)me) * 0x100000001b3ull;
		total++;
		if (i % SLEEP_EVERY == SLEEP_EVERY - 1)
			nanosleep(&nap, NULL); /* the others spin meanwhile */
		held_by = -1;
		pthread_spin_unlock(&lock);
	}
	return NULL;
}

static _Atomic long flag; /* even: main's turn; odd: the other's */
static int use_pause;

static void wait_for(long want)
{
	if (!use_pause) {
		while (atomic_load_explicit(&flag, memory_order_acquire) !=
		       want)
			;
		return;
	}
	while (atomic_load_explicit(&flag, memory_order_acquire) != want)
		for (int i = 0; i < 5; i++)
			__builtin_ia32_pause();
}

static void *ponger(void *arg)
{
	(void)arg;
	for (long r = 0; r < ROUNDS; r++) {
		wait_for(2 * r + 1);
		atomic_store_explicit(&flag, 2 * r + 2, memory_order_release);
	}
	return NULL;
}

static void handoffs(int pause)
{
	pthread_t t;

	use_pause = pause;
	atomic_store(&flag, 0);
	MT_CHECK(pthread_create(&t, NULL, ponger, NULL) == 0, "create");
	for (long r = 0; r < ROUNDS; r++) {
		wait_for(2 * r);
		atomic_store_explicit(&flag, 2 * r + 1, memory_order_release);
	}
	MT_CHECK(pthread_join(t, NULL) == 0, "join");
	MT_CHECK(atomic_load(&flag) == 2 * ROUNDS, "flag %ld",
		 atomic_load(&flag));
	printf("flag handoffs%s: %d\n", pause ? " with pause" : "", 2 * ROUNDS);
}

int main(void)
{
	pthread_t th[NTHREADS];

	mt_init();
	MT_CHECK(pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE) == 0,
		 "spin_init");
	for (long i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_create(&th[i], NULL, locker, (void *)i) == 0,
			 "create");
	for (long i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_join(th[i], NULL) == 0, "join");
	MT_CHECK(total == NTHREADS * LOCKS, "total %ld", total);
	printf("spinlock: %ld acquisitions, order hash %016llx\n", total,
	       (unsigned long long)order);
	handoffs(0);
	handoffs(1);
	mt_pass();
	return 0;
}
