/* kill_stopped_child: a child waits in pause(); its parent stops it with
 * SIGSTOP (which interrupts the pause: the kernel restarts it once the
 * child is continued), continues it with SIGCONT and kills it with
 * SIGKILL, as stress-ng's wait stressor does. The recording sees the stop
 * and never another event of the child: the kill came while it waited in
 * the restarted pause. The replay must end the child there, not report
 * that it called pause where the trace has it die. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/wait.h>

int main(void)
{
	int i, st;
	pid_t pid;

	mt_init();
	for (i = 0; i < 3; i++) {
		pid = MT_SYS(fork());
		if (pid == 0) {
			for (;;)
				pause();
		}
		MT_SYS(kill(pid, SIGSTOP));
		MT_CHECK(MT_SYS(waitpid(pid, &st, WUNTRACED)) == pid,
			 "waitpid");
		MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP,
			 "expected the child stopped, status %#x", st);
		MT_SYS(kill(pid, SIGCONT));
		if (i == 1) /* let it go back into pause */
			usleep(20000);
		if (i == 2) { /* killed while stopped */
			MT_SYS(kill(pid, SIGSTOP));
			MT_CHECK(MT_SYS(waitpid(pid, &st, WUNTRACED)) == pid,
				 "waitpid");
		}
		MT_SYS(kill(pid, SIGKILL));
		do
			MT_SYS(waitpid(pid, &st, 0));
		while (!WIFSIGNALED(st) && !WIFEXITED(st));
		MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
			 "expected SIGKILL, status %#x", st);
		printf("child %d killed\n", i);
	}
	mt_pass();
	return 0;
}
