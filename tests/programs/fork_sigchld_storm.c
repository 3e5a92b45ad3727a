/* fork_sigchld_storm: a parent forks children that exit at once while it
 * goes on forking, so that its later forks meet SIGCHLDs (LTP fork07).
 * At replay the replayed children exit too, and their real SIGCHLD can
 * interrupt a replayed fork (-ERESTARTNOINTR, which the kernel restarts):
 * the replay must let the fork go on, not call it failed, and deliver
 * SIGCHLD where the recording had it. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

#define CHILDREN 300

static volatile sig_atomic_t sigchlds;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchlds++;
}

int main(void)
{
	struct sigaction sa;
	int i, status, reaped = 0;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART;
	MT_SYS(sigaction(SIGCHLD, &sa, NULL));
	for (i = 0; i < CHILDREN; i++) {
		pid_t pid = MT_SYS(fork());

		if (pid == 0) {
			/* exit while the parent is in a later fork */
			for (volatile int k = 0; k < 20000 * (i % 5); k++)
				;
			_exit(i % 7);
		}
	}
	while (wait(&status) > 0)
		if (WIFEXITED(status))
			reaped++;
	MT_CHECK(reaped == CHILDREN, "reaped %d of %d", reaped, CHILDREN);
	MT_CHECK(sigchlds >= 1, "no SIGCHLD at all");
	printf("reaped %d children\n", reaped);
	mt_pass();
	return 0;
}
