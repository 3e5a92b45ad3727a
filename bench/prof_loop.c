/* prof_loop [N]: N iterations (default 2,000,000) of straight-line
 * arithmetic without syscalls, sampled by SIGPROF at 100 Hz
 * (setitimer(ITIMER_PROF, 10 ms)), as a profiler does. Prints the number of
 * samples and the result. For bench/preempt.sh. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define MUL 6364136223846793005ull
#define ADD 1442695040888963407ull

static volatile sig_atomic_t samples;

static void on_prof(int sig)
{
	(void)sig;
	samples++;
}

#define R(x)                                                                   \
	x = x * MUL + ADD;                                                     \
	x ^= x >> 29;
#define R8(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x) R(x)

__attribute__((noinline)) static uint64_t step(uint64_t x)
{
	R8(x) R8(x) R8(x) R8(x) return x;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000, x = 1;
	struct itimerval it = {{0, 10000}, {0, 10000}};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL))
		return 1;
	for (uint64_t i = 0; i < n; i++)
		x = step(x);
	printf("%llu iterations, %d samples, x=%016llx\n",
	       (unsigned long long)n, (int)samples, (unsigned long long)x);
	return 0;
}
