/* hostile_signal_parent: signals its parent, which under `mrr record` is
 * mrr itself: SIGINT, SIGTERM, SIGHUP (tgkill), SIGSTOP and SIGCONT, then
 * SIGINT to its whole process group, which it ignores itself, and SIGSTOP
 * and SIGTSTP to that group (which stop it too, natively). Then it does
 * some work and prints PASS. Natively it would stop or interrupt whoever
 * started it, so only signal_parent.sh runs it, under mrr: the recording
 * must neither stop nor take the signals for the user's, and the replay
 * must print the same. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	pid_t parent = getppid();
	long r[8];

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, SIG_IGN);
	r[0] = kill(parent, SIGINT);
	r[1] = kill(parent, SIGTERM);
	r[2] = syscall(SYS_tgkill, parent, parent, SIGHUP);
	r[3] = kill(parent, SIGSTOP);
	r[4] = kill(parent, SIGCONT);
	r[5] = kill(0, SIGINT);
	r[6] = kill(0, SIGSTOP);
	r[7] = kill(0, SIGTSTP);
	printf("kill results: %ld %ld %ld %ld %ld %ld %ld %ld\n", r[0], r[1],
	       r[2], r[3], r[4], r[5], r[6], r[7]);
	for (int i = 0; i < 1000; i++)
		getpid();
	printf("still running\nPASS\n");
	return 0;
}
