/* tkill_loop [ROUNDS]: ROUNDS (default 30,000) of "send SIGHUP to this
 * thread with tkill, run its empty handler, return with rt_sigreturn", the
 * hot loop of LTP signal06's main thread. Under mrr each round is two
 * traced syscalls and one recorded signal. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long handled;

static void on_hup(int sig)
{
	(void)sig;
	handled++;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 30000;
	struct sigaction sa = {0};
	pid_t tid = (pid_t)syscall(SYS_gettid);

	sa.sa_handler = on_hup;
	if (sigaction(SIGHUP, &sa, NULL) != 0) {
		perror("sigaction");
		return 1;
	}
	for (long r = 0; r < rounds; r++)
		syscall(SYS_tkill, tid, SIGHUP);
	if (handled != rounds) {
		fprintf(stderr, "tkill_loop: %ld of %ld signals handled\n",
			handled, rounds);
		return 1;
	}
	printf("%ld signals handled\n", rounds);
	return 0;
}
