/* sbuf_flush_deferred: another process's signal, which the program
 * catches, stops it while it makes only buffered calls (lseek and read of
 * a regular file) in a loop. Where the recorder cannot make a preemption
 * point it holds the signal until the task's next traced call.
 *
 * - A signal held for a loop exit that the task reached an event before
 *   (a flush of its full buffer) was held for the next traced call without
 *   asking the library to trace one: the program, which makes no other,
 *   never got it, and the recording ran until killed.
 * - The recorder flushed the buffer at the stop of a held signal, which
 *   records nothing. Stopped at the library's untraced fstat (the file
 *   type check of a read, made after the library read hdr.used), the read
 *   then put its record at the old offset, and the next flush had all of
 *   the first's records again: two flushes with no event between them,
 *   which a replay can only place by luck (sbuf/flush_before_event checks
 *   the trace).
 *
 * Prints the number of reads, which mrr dump must count once.
 *
 * mrr-test: args="100" timeout=120
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300;
	unsigned long calls = 0, sum = 0;
	struct sigaction sa;
	int ack[2], st = 0, fd;
	pid_t parent = getpid(), child;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));
	MT_SYS(pipe(ack));
	fd = MT_SYS(open("/proc/self/exe", O_RDONLY)); /* a regular file */
	child = MT_SYS(fork());
	if (child == 0) {
		char c;

		close(ack[1]);
		/* one signal at a time: the next once the last was handled,
		 * after some work, so that it finds the parent at varied
		 * places of its loop */
		for (long r = 0; r < rounds; r++) {
			for (volatile long i = 0;
			     i < 2000000 + r * 7919 % 4000000; i++)
				;
			if (kill(parent, SIGUSR1) != 0 ||
			    read(ack[0], &c, 1) != 1)
				_exit(2);
		}
		_exit(0);
	}
	close(ack[0]);
	for (long r = 0; r < rounds;) {
		unsigned char c = 0;

		/* buffered calls, nothing else */
		MT_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
		MT_CHECK(read(fd, &c, 1) == 1 && c == 0x7f, "read");
		sum += c;
		calls++;
		if (got > r) {
			MT_CHECK(got == r + 1, "%d signals after %ld", (int)got,
				 r);
			r++;
			MT_CHECK(write(ack[1], "a", 1) == 1, "ack");
		}
	}
	MT_SYS(waitpid(child, &st, 0));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x",
		 st);
	MT_CHECK(sum == 0x7f * calls, "sum");
	printf("%ld signals handled between %lu buffered reads\n", rounds,
	       calls);
	mt_pass();
	return 0;
}
