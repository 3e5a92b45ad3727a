/* signal_child: the parent sends SIGUSR1 to a child that has a handler and
 * waits for it with sigsuspend. The child checks the signal came from its
 * parent (si_pid, si_code) and reports through its exit status, which the
 * parent checks. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;
static volatile pid_t sender;
static volatile int code;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	got++;
	sender = si->si_pid;
	code = si->si_code;
}

static int child(int ready_fd)
{
	struct sigaction sa;
	sigset_t block, empty;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	/* Block first, so the signal cannot come between the check of got
	 * and sigsuspend. */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &block, NULL) ||
	    sigaction(SIGUSR1, &sa, NULL))
		return 2;
	if (write(ready_fd, "r", 1) != 1)
		return 3;
	sigemptyset(&empty);
	while (!got)
		sigsuspend(&empty);
	if (got != 1)
		return 4;
	if (sender != getppid())
		return 5;
	if (code != SI_USER)
		return 6;
	return 42;
}

int main(void)
{
	pid_t pid;
	char c;
	int p[2], st;

	mt_init();
	MT_SYS(pipe(p));
	pid = MT_SYS(fork());
	if (pid == 0) {
		close(p[0]);
		_exit(child(p[1]));
	}
	MT_SYS(close(p[1]));
	MT_CHECK(MT_SYS(read(p[0], &c, 1)) == 1 && c == 'r',
		 "child never got ready");
	printf("child %s its handler\n", "installed");
	MT_SYS(kill(pid, SIGUSR1));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st), "child died: status %#x", st);
	MT_CHECK(WEXITSTATUS(st) == 42,
		 "child reported %d (2 setup, 3 pipe, 4 count, 5 sender, "
		 "6 si_code)",
		 WEXITSTATUS(st));
	printf("child saw SIGUSR1 from its parent and exited 42\n");
	MT_SYS(close(p[0]));
	mt_pass();
	return 0;
}
