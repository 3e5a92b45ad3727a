/* preempt_sigprof: SIGPROF sampling of a loop without syscalls, as a
 * profiler does. ITIMER_PROF fires every 2 ms of CPU time; the handler
 * notes the loop's iteration count at each of 30 samples, then stops the
 * timer and the loop. The program prints every sample: the replay must
 * print the recorded ones, so each signal must reach the loop at the same
 * iteration as at record. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define NSAMPLES 30
#define MUL	 6364136223846793005ull
#define ADD	 1442695040888963407ull

static volatile uint64_t iter;
static uint64_t samples[NSAMPLES];
static volatile sig_atomic_t nsamples;

static void on_prof(int sig)
{
	(void)sig;
	if (nsamples < NSAMPLES)
		samples[nsamples++] = iter;
}

#define R(x)                                                                   \
	x = x * MUL + ADD;                                                     \
	x ^= x >> 31;
#define R8(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x)

__attribute__((noinline)) static uint64_t work(uint64_t x)
{
	R8(x) R8(x) R8(x) R8(x) return x;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 2000}, {0, 2000}}, off = {{0, 0}, {0, 0}};
	uint64_t x = 7;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	MT_SYS(sigaction(SIGPROF, &sa, NULL));
	MT_SYS(setitimer(ITIMER_PROF, &it, NULL));
	while (nsamples < NSAMPLES) {
		x = work(x);
		iter = iter + 1;
	}
	MT_SYS(setitimer(ITIMER_PROF, &off, NULL));
	for (int i = 0; i < NSAMPLES; i++) {
		MT_CHECK(i == 0 || samples[i] >= samples[i - 1],
			 "samples go back: %llu then %llu",
			 (unsigned long long)samples[i - 1],
			 (unsigned long long)samples[i]);
		printf("sample %d at iteration %llu\n", i,
		       (unsigned long long)samples[i]);
	}
	printf("x=%016llx after %llu iterations\n", (unsigned long long)x,
	       (unsigned long long)iter);
	mt_pass();
	return 0;
}
