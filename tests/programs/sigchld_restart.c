/* sigchld_restart: SIGCHLD interrupting a parent's blocking calls, the
 * signal-timing class of issue 10. The parent waits in wait4 for a slow
 * child while a quick child exits: SIGCHLD interrupts the wait
 * (ERESTARTSYS), the handler runs, and the wait restarts (SA_RESTART) or
 * fails with EINTR (without it). Then a burst of forks while children exit,
 * so that some fork is interrupted and restarted (ERESTARTNOINTR). Handler
 * counts and wait results must replay as recorded. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>

static volatile sig_atomic_t sigchlds;

static void on_chld(int sig)
{
	(void)sig;
	sigchlds++;
}

static pid_t child_sleeping(long ms)
{
	pid_t pid = MT_SYS(fork());

	if (pid == 0) {
		struct timespec ts = {0, ms * 1000000L};

		nanosleep(&ts, NULL);
		_exit(7);
	}
	return pid;
}

static void wait_slow_child(int flags)
{
	struct sigaction sa = {0};
	pid_t quick, slow, got;
	int st, eintr = 0;

	sa.sa_handler = on_chld;
	sa.sa_flags = flags;
	MT_SYS(sigaction(SIGCHLD, &sa, NULL));
	slow = child_sleeping(300);
	quick = child_sleeping(0);
	for (;;) {
		got = wait4(slow, &st, 0, NULL);
		if (got == slow)
			break;
		MT_CHECK(got == -1 && errno == EINTR, "wait4 gave %d errno %d",
			 (int)got, errno);
		eintr++;
	}
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	MT_SYS(waitpid(quick, &st, 0));
	printf("%s: slow child reaped, wait4 interrupted %s\n",
	       flags & SA_RESTART ? "SA_RESTART" : "no SA_RESTART",
	       flags & SA_RESTART ? "and restarted"
	       : eintr		  ? "with EINTR"
				  : "not at all");
}

int main(void)
{
	pid_t kids[40];
	int i, st;

	mt_init();
	wait_slow_child(SA_RESTART);
	wait_slow_child(0);
	for (i = 0; i < 40; i++) {
		kids[i] = MT_SYS(fork());
		if (kids[i] == 0)
			_exit(i);
	}
	for (i = 0; i < 40; i++) {
		pid_t got;

		do
			got = waitpid(kids[i], &st, 0);
		while (got == -1 && errno == EINTR);
		MT_CHECK(got == kids[i] && WIFEXITED(st) &&
				 WEXITSTATUS(st) == i,
			 "child %d: got %d status %#x", i, (int)got, st);
	}
	printf("40 forks during SIGCHLDs, all reaped; handler ran: %s\n",
	       sigchlds > 0 ? "yes" : "no");
	mt_pass();
	return 0;
}
