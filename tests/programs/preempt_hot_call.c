/* preempt_hot_call: a timer ends a loop without syscalls that calls a
 * function doing a fraction of a millisecond of arithmetic; then the
 * program checks the result by doing the same work again, and does a fixed
 * number of calls more (with no timer pending, but one armed before, as
 * stress-ng's stressors finish their last operation after SIGALRM). Each
 * execution of an instruction mrr counts costs a debug exception: counting
 * one inside the arithmetic made the fixed work a hundred times slower at
 * record (past the test's timeout). The recorder counts the function's
 * return address instead (once per call); the replay must print the
 * recorded number of calls and pass the same checks. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

/* Calls after the timer, whatever the loop did. */
#define FIXED_CALLS 300

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static volatile uint64_t divisor = 3;

/* 8000 rounds of 8 dependent divisions: a fraction of a millisecond, in a
 * loop that a counted instruction slows down a hundredfold. */
__attribute__((noinline)) static uint64_t work(uint64_t x)
{
	uint64_t d = divisor;

	for (int i = 0; i < 8000; i++) {
		x = x / d + 0x9e3779b97f4a7c15ull;
		x = x / d + 0x7f4a7c159e3779b9ull;
		x = x / d + 0x3c6ef372fe94f82bull;
		x = x / d + 0xa54ff53a5f1d36f1ull;
		x = x / (d + 2) + 0x510e527fade682d1ull;
		x = x / (d + 2) + 0x9b05688c2b3e6c1full;
		x = x / (d + 4) + 0x1f83d9abfb41bd6bull;
		x = x / (d + 4) + 0x5be0cd19137e2179ull;
	}
	return x;
}

/* The same work from another call site (its own return address). */
__attribute__((noinline)) static uint64_t replay_work(uint64_t x,
						      uint64_t calls)
{
	for (uint64_t c = 0; c < calls; c++)
		x = work(x);
	return x;
}

int main(void)
{
	struct itimerval it = {{0, 0}, {0, 300000}};
	struct sigaction sa;
	uint64_t x = 1, calls = 0;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (!stop) {
		x = work(x);
		calls++;
	}
	MT_CHECK(calls > 0, "the loop ran %llu times",
		 (unsigned long long)calls);
	MT_CHECK(replay_work(1, calls) == x,
		 "the check after %llu calls differs",
		 (unsigned long long)calls);
	MT_CHECK(replay_work(x, FIXED_CALLS) == replay_work(x, FIXED_CALLS),
		 "the fixed work differs");
	printf("calls %llu\n", (unsigned long long)calls);
	mt_pass();
	return 0;
}
