/* mrr-test: expect-signal=SIGABRT no-pass-line=1 */
/* hostile_abort: forks a child that aborts (its parent checks it died of
 * SIGABRT), then installs a SIGABRT handler that returns and calls abort()
 * itself: abort must still kill it with SIGABRT, after the handler ran
 * once. The harness expects status 128+SIGABRT natively, at record, and a
 * replay that reproduces the death. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t handler_ran;

static void on_abrt(int sig)
{
	static const char msg[] = "SIGABRT handler ran and returns\n";

	handler_ran++;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(3);
}

int main(void)
{
	struct sigaction sa;
	int st;
	pid_t pid;

	mt_init();
	pid = MT_SYS(fork());
	if (pid == 0)
		abort();
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		 "the aborting child ended with status %#x", st);
	printf("child died of SIGABRT\n");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_abrt;
	MT_SYS(sigaction(SIGABRT, &sa, NULL));
	printf("calling abort with a handler that returns\n");
	abort();
}
