/* fatal_spin: a signal whose default action kills a task that spins in user
 * code for ever (LTP setitimer01's child). The child arms ITIMER_REAL with
 * SIGALRM at its default action, makes one last syscall and loops without
 * any; the timer kills it. The parent checks that the child died of
 * SIGALRM. The replay must kill the child where the recording did, not
 * wait for a syscall that never comes. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile unsigned long spins;

int main(void)
{
	struct itimerval it = {.it_value = {.tv_usec = 20000}};
	pid_t pid;
	int st;

	mt_init();
	pid = fork();
	MT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		if (setitimer(ITIMER_REAL, &it, NULL) < 0)
			_exit(2);
		for (;;)
			spins++;
	}
	MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM,
		 "child status 0x%x", st);
	printf("child killed by SIGALRM\n");
	mt_pass();
	return 0;
}
