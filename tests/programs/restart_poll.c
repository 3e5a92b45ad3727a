/* restart_poll: a poll with a timeout, interrupted by a signal whose action
 * is to ignore it (SIGCHLD from a child that exits), is restarted by the
 * kernel through restart_syscall, which then writes the pollfds' revents.
 * The replay must hand the program those revents (recorded at the
 * restart_syscall, from the interrupted poll's arguments). A second child
 * makes the pipe readable a little later.
 */
#include "mrr_test.h"

#include <poll.h>
#include <sys/wait.h>
#include <time.h>

int main(void)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	struct pollfd p;
	int fds[2], round;
	pid_t quick, writer;

	mt_init();
	for (round = 0; round < 3; round++) {
		MT_SYS(pipe(fds));
		writer = MT_SYS(fork());
		if (writer == 0) {
			nanosleep(&ts, NULL);
			MT_SYS(write(fds[1], "x", 1));
			_exit(0);
		}
		quick = MT_SYS(fork());
		if (quick == 0)
			_exit(0); /* its SIGCHLD interrupts the poll */
		p.fd = fds[0];
		p.events = POLLIN;
		p.revents = 0x5a5a;
		MT_CHECK(MT_SYS(poll(&p, 1, 10000)) == 1, "poll");
		MT_CHECK(p.revents == POLLIN, "revents %#x", p.revents);
		MT_SYS(waitpid(quick, NULL, 0));
		MT_SYS(waitpid(writer, NULL, 0));
		close(fds[0]);
		close(fds[1]);
		printf("round %d: poll saw POLLIN\n", round);
	}
	mt_pass();
	return 0;
}
