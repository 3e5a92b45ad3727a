/* preempt_alarm: a timer signal ends loops that make no syscall. Three
 * rounds: each arms a 100 ms ITIMER_REAL and runs a loop of straight-line
 * arithmetic until the SIGALRM handler sets a flag, then prints how many
 * iterations ran and the loop's value. The counts vary natively; the replay
 * must print the recorded ones (the signal arrives at a point in user code
 * that the replay finds again). The handler also checks that the value the
 * loop had when the signal came is consistent with the count then. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define MUL 6364136223846793005ull
#define ADD 1442695040888963407ull

static volatile sig_atomic_t stop;
static volatile uint64_t seen_n, seen_x;
static volatile uint64_t cur_n, cur_x;

static void on_alarm(int sig)
{
	(void)sig;
	seen_n = cur_n;
	seen_x = cur_x;
	stop = 1;
}

#define R(x)                                                                   \
	x = x * MUL + ADD;                                                     \
	x ^= x >> 29;
#define R8(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x)

/* Straight-line work (no inner loop), so that each instruction runs once
 * per iteration. */
__attribute__((noinline)) static uint64_t step(uint64_t x)
{
	R8(x) R8(x) R8(x) R8(x) return x;
}

static uint64_t replay_steps(uint64_t n)
{
	uint64_t x = 1;

	while (n--)
		x = step(x);
	return x;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 100000}};
	int retries = 0;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	for (int round = 1; round <= 3; round++) {
		uint64_t n = 0, x = 1;

		stop = 0;
		cur_n = 0;
		cur_x = 1;
		MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
		while (!stop) {
			x = step(x);
			n++;
			cur_x = x;
			cur_n = n;
		}
		/* a loaded machine (or a slow recorder) may let the 100 ms
		 * pass before the loop starts: the signal then comes at the
		 * syscall's return, natively too; that round is run again */
		if (n == 0 && retries++ < 5) {
			round--;
			continue;
		}
		MT_CHECK(n > 0, "no iteration before the alarm");
		/* the signal may come between the two stores */
		MT_CHECK(seen_x == replay_steps(seen_n) ||
				 seen_x == replay_steps(seen_n + 1),
			 "value %llx after %llu iterations at the signal",
			 (unsigned long long)seen_x,
			 (unsigned long long)seen_n);
		printf("round %d: %llu iterations, x=%016llx\n", round,
		       (unsigned long long)n, (unsigned long long)x);
	}
	mt_pass();
	return 0;
}
