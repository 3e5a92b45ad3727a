/* sigmask_exec: the signal mask survives execve, and so does the mask the
 * program was started with. It blocks SIGUSR1 and SIGTERM, leaves SIGUSR2
 * pending-free, and execs itself; the new image must find exactly those
 * blocked, as natively. A program started by mrr must also start with the
 * mask mrr itself was given (the harness starts everything with an empty
 * mask, so the first stage checks for that).
 */
#include "mrr_test.h"

#include <signal.h>

static int blocked(const sigset_t *s, int sig)
{
	return sigismember(s, sig) == 1;
}

int main(int argc, char **argv)
{
	sigset_t set, cur;

	mt_init();
	MT_SYS(sigprocmask(SIG_SETMASK, NULL, &cur));
	if (argc > 1) {
		MT_CHECK(blocked(&cur, SIGUSR1) && blocked(&cur, SIGTERM) &&
				 !blocked(&cur, SIGUSR2) &&
				 !blocked(&cur, SIGINT),
			 "mask after exec: USR1 %d TERM %d USR2 %d INT %d",
			 blocked(&cur, SIGUSR1), blocked(&cur, SIGTERM),
			 blocked(&cur, SIGUSR2), blocked(&cur, SIGINT));
		printf("after exec: SIGUSR1 and SIGTERM still blocked\n");
		mt_pass();
		return 0;
	}
	for (int sig = 1; sig < 32; sig++)
		MT_CHECK(!blocked(&cur, sig), "signal %d blocked at start",
			 sig);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	MT_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
	printf("blocked SIGUSR1 and SIGTERM; exec\n");
	execl("/proc/self/exe", argv[0], "stage2", (char *)NULL);
	MT_CHECK(0, "exec: %s", strerror(errno));
	return 1;
}
