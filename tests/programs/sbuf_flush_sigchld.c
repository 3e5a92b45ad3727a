/* sbuf_flush_sigchld: a child's SIGCHLD (default action: ignored) stops the
 * parent between two buffered calls; the recorder flushed the parent's
 * buffer there, at a stop with no event of its own, and again at the
 * parent's next traced call, and the replay loaded the second flush's
 * records over the first's before the parent had made those calls: it
 * diverged (perl's fork/pipe/sort: "the program made a buffered close
 * where the recording has read"). Now such a stop does not flush, and the
 * replay keeps an earlier flush's records that were not made yet. */
#include "mrr_test.h"

#include <string.h>
#include <sys/wait.h>

#define ROUNDS 16
#define BLOCK  4096
#define CHECK  512 /* buffered reads between two looks at the child */

int main(void)
{
	static char block[BLOCK];
	int fds[2];

	mt_init();
	MT_SYS(pipe(fds));
	memset(block, 'x', sizeof(block));
	for (int r = 0; r < ROUNDS; r++) {
		int st = 0, in_pipe = 0;
		pid_t pid = fork(), got = 0;

		MT_CHECK(pid >= 0, "fork");
		if (pid == 0)
			_exit(r);
		/* buffered reads while the child exits */
		for (unsigned long i = 0; got == 0; i++) {
			char c;

			if (in_pipe == 0) {
				MT_CHECK(write(fds[1], block, BLOCK) == BLOCK,
					 "write");
				in_pipe = BLOCK;
			}
			MT_CHECK(read(fds[0], &c, 1) == 1 && c == 'x', "read");
			in_pipe--;
			if (i % CHECK == CHECK - 1)
				MT_SYS(got = waitpid(pid, &st, WNOHANG));
		}
		MT_CHECK(got == pid && WIFEXITED(st) && WEXITSTATUS(st) == r,
			 "status 0x%x", st);
		while (in_pipe > 0) {
			char buf[BLOCK];
			ssize_t n = read(fds[0], buf, (size_t)in_pipe);

			MT_CHECK(n > 0, "drain");
			in_pipe -= (int)n;
		}
		printf("round %d: child exited %d\n", r, WEXITSTATUS(st));
	}
	mt_pass();
	return 0;
}
