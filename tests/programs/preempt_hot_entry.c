/* preempt_hot_entry: a timer signal ends a loop that calls a tiny function
 * and tests, between calls, only the flag that the signal's handler sets.
 * The first timeslice after the setitimer is a point searched by its
 * registers among thousands of calls (the loop's counter tells them
 * apart), which the replay finds by patching the code when the point's
 * instructions allow it (fastsearch.h; the return of the tiny function
 * does not when the next function follows it at once). The replay must
 * print the recorded number of calls and the same hash. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

static volatile sig_atomic_t stop;
static volatile uint64_t turns_seen;
static volatile uint64_t turns; /* in memory at every turn, for the check */

static void on_alarm(int sig)
{
	(void)sig;
	turns_seen = turns;
	stop = 1;
}

/* A step of a hash, in a function of its own whose entry is hot. */
__attribute__((noinline)) static uint64_t step(uint64_t x, uint64_t i)
{
	__asm__ volatile("" : "+r"(x));
	return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ull + i;
}

int main(void)
{
	struct itimerval it = {.it_value = {.tv_usec = 200000}};
	uint64_t x = 1;

	mt_init();
	MT_SYS(signal(SIGALRM, on_alarm));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (!stop) {
		x = step(x, turns);
		turns++;
	}
	/* the handler ran between two calls: at most one more since */
	MT_CHECK(turns - turns_seen <= 1, "%llu calls, %llu in the handler",
		 (unsigned long long)turns, (unsigned long long)turns_seen);
	printf("calls %llu, hash %llx\n", (unsigned long long)turns,
	       (unsigned long long)x);
	mt_pass();
	return 0;
}
