/* shared_stdout: four processes write lines to the same stdout at once.
 * The kernel orders their writes; the replay must echo the lines in that
 * same order (issue 10: it echoed them in the order mrr happened to see the
 * calls end). Each line names its writer and its number, and the parent
 * checks that every child wrote all of its lines. */
#include "mrr_test.h"

#include <sys/wait.h>

#define WRITERS 4
#define LINES	300

int main(void)
{
	pid_t kids[WRITERS];
	int i, st;

	mt_init();
	for (i = 0; i < WRITERS; i++) {
		kids[i] = MT_SYS(fork());
		if (kids[i] == 0) {
			char line[64];

			for (int k = 0; k < LINES; k++) {
				int n = snprintf(line, sizeof(line),
						 "writer %d line %d\n", i, k);
				if (write(1, line, (size_t)n) != n)
					_exit(1);
			}
			_exit(0);
		}
	}
	for (i = 0; i < WRITERS; i++) {
		MT_SYS(waitpid(kids[i], &st, 0));
		MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "writer %d status %#x", i, st);
	}
	printf("%d writers wrote %d lines each\n", WRITERS, LINES);
	mt_pass();
	return 0;
}
