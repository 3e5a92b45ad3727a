/* preempt_exit_alternate: work that runs two long loops in turn, without
 * syscalls, until a timer signal (as stress-ng prefetch, whose two prefetch
 * sweeps over a 270 MB buffer alternate). mrr records a point at the exit
 * of the loop the task is in; when the task left that loop for the other
 * one, the exit stopped serving and its counter was dropped, so that the
 * next point at it, a run later, counted since the middle of the stretch
 * and was searched (with a memory digest of the whole process: 24 of the
 * 28 s prefetch took at replay). tests/e2e/preempt_exit_alternate.sh
 * counts the searched points of a recording of this program; here, the
 * program only checks itself, and the replay prints what it recorded.
 * Three rounds, each under a 150 ms ITIMER_REAL whose handler sets a flag
 * that the outer loop tests. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define N (1u << 17)

static volatile sig_atomic_t stop;
static volatile uint64_t cur_rounds, seen_rounds;
static uint64_t a[N], b[N];

static void on_alarm(int sig)
{
	(void)sig;
	seen_rounds = cur_rounds;
	stop = 1;
}

/* Loop A: rewrites a from b. */
__attribute__((noinline)) static void mix(uint64_t salt)
{
	for (uint32_t i = 0; i < N; i++)
		a[i] = (a[i] ^ b[i]) * 6364136223846793005ull + salt + i;
}

/* Loop B: folds a into b and a sum. */
__attribute__((noinline)) static uint64_t fold(void)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < N; i++) {
		b[i] += a[i] >> 11;
		s ^= b[i] + (s << 1);
	}
	return s;
}

static uint64_t alternate(uint64_t *rounds)
{
	uint64_t sum = 0, r = 0;

	while (!stop) {
		mix(r);
		sum += fold();
		r++;
		cur_rounds = r;
	}
	*rounds = r;
	return sum;
}

static void arm(void)
{
	struct itimerval it = {{0, 0}, {0, 150000}};

	stop = 0;
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
}

int main(void)
{
	struct sigaction sa;
	uint64_t rounds, sum;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	for (uint32_t i = 0; i < N; i++)
		b[i] = i * 2654435761u;
	for (int round = 0; round < 3; round++) {
		arm();
		sum = alternate(&rounds);
		MT_CHECK(rounds > 0, "round %d: no turn before the alarm",
			 round);
		MT_CHECK(seen_rounds == rounds || seen_rounds + 1 == rounds,
			 "round %d: the handler saw %llu turns, the loop ran "
			 "%llu",
			 round, (unsigned long long)seen_rounds,
			 (unsigned long long)rounds);
		printf("round %d: %llu turns, sum %016llx\n", round,
		       (unsigned long long)rounds, (unsigned long long)sum);
	}
	mt_pass();
	return 0;
}
