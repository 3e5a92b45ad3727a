/* For preempt_sigint.sh: catches SIGINT, prints "ready" and computes in
 * slices of about a millisecond (a getppid call between two: an event),
 * until SIGINT comes or 20 s pass; prints where the signal found it. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MUL 6364136223846793005ull
#define ADD 1442695040888963407ull

static volatile sig_atomic_t stop;
static volatile uint64_t cur;

static void on_int(int sig)
{
	(void)sig;
	stop = 1;
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
	uint64_t x = 1, n = 0;
	time_t start = time(NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	if (sigaction(SIGINT, &sa, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	while (!stop && time(NULL) - start < 20) {
		for (int i = 0; i < 5000 && !stop; i++) {
			x = work(x);
			cur = ++n;
		}
		if (getppid() < 0)
			return 1;
	}
	printf("%s after %llu iterations, x=%016llx\n",
	       stop ? "SIGINT" : "no signal", (unsigned long long)n,
	       (unsigned long long)x);
	return stop ? 0 : 2;
}
