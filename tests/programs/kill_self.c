/* kill_self: signals sent to oneself and to a child. kill(getpid()) and
 * raise() run the handler before they return (checked with si_code and
 * si_pid); a blocked signal stays pending until unblocked; a child killed
 * with SIGTERM is reported as killed by SIGTERM. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t usr1, usr2;
static volatile int last_code, last_pid;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	if (sig == SIGUSR1)
		usr1++;
	else
		usr2++;
	last_code = si->si_code;
	last_pid = si->si_pid;
}

int main(void)
{
	struct sigaction sa;
	sigset_t set, pending;
	pid_t pid;
	int st;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));
	MT_SYS(sigaction(SIGUSR2, &sa, NULL));

	MT_SYS(kill(getpid(), SIGUSR1));
	MT_CHECK(usr1 == 1, "SIGUSR1 handled %d times", (int)usr1);
	MT_CHECK(last_code == SI_USER && last_pid == getpid(),
		 "si_code %d si_pid %d", last_code, last_pid);
	printf("kill(self, SIGUSR1): handler ran, si_code SI_USER\n");

	MT_CHECK(raise(SIGUSR2) == 0, "raise failed");
	MT_CHECK(usr2 == 1, "SIGUSR2 handled %d times", (int)usr2);
	MT_CHECK(last_code == SI_TKILL || last_code == SI_USER, "si_code %d",
		 last_code);
	printf("raise(SIGUSR2): handler ran\n");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	MT_SYS(sigprocmask(SIG_BLOCK, &set, NULL));
	MT_SYS(kill(getpid(), SIGUSR1));
	MT_CHECK(usr1 == 1, "blocked SIGUSR1 was delivered");
	MT_SYS(sigpending(&pending));
	MT_CHECK(sigismember(&pending, SIGUSR1), "SIGUSR1 not pending");
	MT_SYS(sigprocmask(SIG_UNBLOCK, &set, NULL));
	MT_CHECK(usr1 == 2, "SIGUSR1 not delivered on unblock (%d)", (int)usr1);
	printf("blocked SIGUSR1 stayed pending, then arrived on unblock\n");

	pid = MT_SYS(fork());
	if (pid == 0) {
		for (;;)
			pause();
	}
	MT_SYS(kill(pid, SIGTERM));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "child status %#x",
		 st);
	printf("child killed by SIGTERM\n");
	mt_pass();
	return 0;
}
