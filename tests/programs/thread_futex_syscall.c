/* thread_futex_syscall: threads that make their futex calls through libc's
 * syscall(), as Rust's std and language runtimes do. Three threads pass a
 * token round a ring with FUTEX_WAIT and FUTEX_WAKE (the preload library
 * buffers the wakes); the number of threads each wake woke is summed and
 * printed (it varies natively, the replay must print the recorded sum).
 * Also checks that other calls through syscall() behave as libc's: errno
 * on failure, FUTEX_WAKE_BITSET's sixth argument, a wake with no waiter. */
#include "mrr_test.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>

#define NTHREADS 3
#define PASSES	 600

static _Atomic int turn[NTHREADS];
static _Atomic long woken;

static long futex(_Atomic int *word, int op, int val, unsigned bitset)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL,
		       NULL, bitset);
}

static void *ring(void *arg)
{
	int me = (int)(long)arg, next = (me + 1) % NTHREADS;

	for (int i = 0; i < PASSES; i++) {
		while (atomic_load(&turn[me]) == 0)
			futex(&turn[me], FUTEX_WAIT, 0, 0);
		atomic_store(&turn[me], 0);
		atomic_store(&turn[next], 1);
		long n = futex(&turn[next], FUTEX_WAKE, 1, 0);
		MT_CHECK(n == 0 || n == 1, "wake returned %ld", n);
		atomic_fetch_add(&woken, n);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[NTHREADS];
	_Atomic int lone = 0;

	mt_init();
	errno = 0;
	MT_CHECK(syscall(SYS_close, -1) == -1 && errno == EBADF,
		 "close(-1) through syscall(): errno %d", errno);
	MT_CHECK(syscall(SYS_getpid) == getpid(), "getpid");
	MT_CHECK(futex(&lone, FUTEX_WAKE, 1, 0) == 0, "wake of nobody");
	MT_CHECK(futex(&lone, FUTEX_WAKE_BITSET, 1, 0) == -1 && errno == EINVAL,
		 "a zero bitset must fail: errno %d", errno);
	MT_CHECK(futex(&lone, FUTEX_WAKE_BITSET, 1, ~0u) == 0,
		 "wake_bitset of nobody");
	atomic_store(&turn[0], 1);
	for (long i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_create(&t[i], NULL, ring, (void *)i) == 0,
			 "create");
	for (int i = 0; i < NTHREADS; i++)
		MT_CHECK(pthread_join(t[i], NULL) == 0, "join");
	printf("%d passes, %ld threads woken\n", NTHREADS * PASSES,
	       atomic_load(&woken));
	mt_pass();
	return 0;
}
