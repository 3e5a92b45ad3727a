/* nested_signals: several signals pending at once, delivered back to back
 * when the mask opens, so the kernel stacks one handler frame on another
 * before any handler runs (issue 10's signal-timing class: LTP kill12 and
 * fork07 diverged with "signal SIGCHLD was delivered after a syscall at
 * record, but the task is elsewhere"). A child sends SIGHUP, SIGUSR1 and
 * three queued SIGRTMIN while the parent blocks them; the parent then
 * unblocks them all in one sigprocmask. Handlers log the order they ran
 * in, which the replay must print the same. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t order[16];
static volatile sig_atomic_t norder;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (norder < 16)
		order[norder++] =
			sig * 100 +
			(sig == SIGRTMIN ? si->si_value.sival_int : 0);
}

int main(void)
{
	struct sigaction sa = {0};
	sigset_t set, old;
	pid_t parent = getpid(), pid;
	int st, i;

	mt_init();
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	MT_SYS(sigaction(SIGHUP, &sa, NULL));
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));
	MT_SYS(sigaction(SIGRTMIN, &sa, NULL));
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN);
	MT_SYS(sigprocmask(SIG_BLOCK, &set, &old));

	pid = MT_SYS(fork());
	if (pid == 0) {
		union sigval v;

		if (kill(parent, SIGHUP) || kill(parent, SIGUSR1))
			_exit(1);
		for (i = 1; i <= 3; i++) {
			v.sival_int = i;
			if (sigqueue(parent, SIGRTMIN, v))
				_exit(2);
		}
		_exit(0);
	}
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	MT_CHECK(norder == 0, "a blocked signal ran early");
	MT_SYS(sigprocmask(SIG_SETMASK, &old, NULL));
	MT_CHECK(norder == 5, "%d handlers ran, wanted 5", (int)norder);
	printf("handlers ran in this order:");
	for (i = 0; i < norder; i++)
		printf(" %d", (int)order[i]);
	printf("\n");
	mt_pass();
	return 0;
}
