/* sigaction_untraced: rt_sigaction runs without a ptrace stop for every
 * signal but SIGALRM, SIGVTALRM and SIGPROF (src/core/seccomp_filter.h),
 * at record and at replay. Installs, queries and resets handlers for many
 * signals, each checked against what it installed, raises each (the
 * handler must run at replay as at record, so the untraced calls must have
 * run at replay too), makes the calls the kernel refuses, and spawns a
 * child with posix_spawn (whose child resets every handler with libc's own
 * rt_sigaction calls). tests/e2e/sigaction_untraced.sh checks that the
 * recording has events for the timer signals' calls only. */
#include "mrr_test.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static volatile sig_atomic_t hits[NSIG];

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	hits[sig]++;
}

int main(void)
{
	const int sigs[] = {SIGHUP,  SIGINT,   SIGQUIT, SIGUSR1,
			    SIGUSR2, SIGPIPE,  SIGTERM, SIGWINCH,
			    SIGURG,  SIGRTMIN, SIGALRM};
	struct sigaction sa, old;
	char *argv[] = {"true", NULL};
	int calls = 0, status;
	pid_t pid;

	mt_init();
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			int s = sigs[i];

			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_signal;
			sa.sa_flags = SA_SIGINFO | (round % 2 ? SA_RESTART : 0);
			sigemptyset(&sa.sa_mask);
			sigaddset(&sa.sa_mask, SIGUSR2);
			MT_SYS(sigaction(s, &sa, NULL));
			MT_SYS(sigaction(s, NULL, &old));
			MT_CHECK(old.sa_sigaction == on_signal &&
					 (old.sa_flags & SA_RESTART) ==
						 (sa.sa_flags & SA_RESTART) &&
					 sigismember(&old.sa_mask, SIGUSR2),
				 "signal %d: the handler read back differs", s);
			MT_SYS(raise(s));
			MT_CHECK(hits[s] == round + 1,
				 "signal %d: %d handler runs, expected %d", s,
				 (int)hits[s], round + 1);
			sa.sa_handler = round % 3 ? SIG_DFL : SIG_IGN;
			sa.sa_flags = 0;
			MT_SYS(sigaction(s, &sa, &old));
			MT_CHECK(old.sa_sigaction == on_signal,
				 "signal %d: old handler lost", s);
			calls += 3;
		}
		errno = 0;
		MT_CHECK(sigaction(SIGKILL, &sa, NULL) == -1 && errno == EINVAL,
			 "sigaction(SIGKILL) gave errno %d", errno);
		errno = 0;
		MT_CHECK(sigaction(0, NULL, &old) == -1 && errno == EINVAL,
			 "sigaction(0) gave errno %d", errno);
		MT_SYS(sigaction(SIGSTOP, NULL, &old));
	}
	/* handlers installed, so the spawn child resets them */
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));
	MT_SYS(sigaction(SIGTERM, &sa, NULL));
	for (int i = 0; i < 5; i++) {
		int err = posix_spawnp(&pid, "true", NULL, NULL, argv, environ);

		MT_CHECK(err == 0, "posix_spawnp: %s", strerror(err));
		MT_CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
				 WEXITSTATUS(status) == 0,
			 "true: status %#x", status);
	}
	printf("sigaction_untraced: %d calls, %d SIGUSR1 handler runs\n", calls,
	       (int)hits[SIGUSR1]);
	mt_pass();
	return 0;
}
