/* preempt_after_buffered: a timer signal lands in a loop that runs right
 * after a buffered call and never writes r11. At record the call ran a
 * syscall in the syscall buffer library, which left the flags in r11; at
 * replay the library only copies the recorded result, and r11 differs.
 * The first preemption point in the loop leaves r11 out of its comparison
 * (a buffered call ran before it), but the ones after it compare every
 * register: the replay must go on with the recorded r11 from the first
 * point on, or it reports a false divergence at the second (stress-ng's
 * bsearch, cache, vecfp ... did). The iteration counts printed are the
 * recorded ones. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define ROUNDS 3

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* Counts in rax until the handler sets stop; touches no other register. */
__attribute__((noinline)) static uint64_t spin_until_stop(void)
{
	uint64_t n = 0;

	__asm__ volatile("1: incq %0\n\t"
			 "testl $1, %1\n\t"
			 "jz 1b"
			 : "+a"(n)
			 : "m"(stop)
			 : "cc");
	return n;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 60000}};
	uint64_t total = 0;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t n;

		stop = 0;
		MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
		total += (uint64_t)getuid() + (uint64_t)getpid();
		n = spin_until_stop();
		MT_CHECK(n > 0, "the loop ran %llu times",
			 (unsigned long long)n);
		printf("round %d: %llu iterations\n", round,
		       (unsigned long long)n);
	}
	printf("ids %llu\n", (unsigned long long)total);
	mt_pass();
	return 0;
}
