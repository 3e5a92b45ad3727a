/* sbuf_signal: a SIGALRM handler sets a flag while the program spins on
 * clock_gettime (a buffered call). mrr holds a signal that arrives outside a
 * syscall until the next traced one, and must make one soon: the loop has
 * to end, at record and replay alike. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t fired;

static void on_alarm(int sig)
{
	(void)sig;
	fired = 1;
}

int main(void)
{
	struct itimerval it = {.it_value = {.tv_usec = 20000}};
	struct sigaction sa = {.sa_handler = on_alarm};
	struct timespec start, now;
	long spins = 0;

	mt_init();
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(clock_gettime(CLOCK_MONOTONIC, &start));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	do {
		MT_SYS(clock_gettime(CLOCK_MONOTONIC, &now));
		spins++;
		MT_CHECK(now.tv_sec - start.tv_sec < 20,
			 "no SIGALRM after 20 s (%ld spins)", spins);
	} while (!fired);
	printf("SIGALRM arrived after %ld clock_gettime calls\n", spins);
	mt_pass();
	return 0;
}
