/* pipeline: runs sh -c 'ls / | sort | head -3' with its stdout on a pipe,
 * reads what it printed, and checks there are three lines in byte order and
 * that the shell exited 0. */
#include "mrr_test.h"

#include <sys/wait.h>

int main(void)
{
	char buf[4096], *lines[4], *save = NULL, *l;
	size_t len = 0;
	int p[2], st, nlines = 0;
	ssize_t n;
	pid_t pid;

	mt_init();
	MT_SYS(pipe(p));
	pid = MT_SYS(fork());
	if (pid == 0) {
		if (dup2(p[1], STDOUT_FILENO) < 0)
			_exit(126);
		close(p[0]);
		close(p[1]);
		/* Byte order, so that the parent can check the sort. */
		setenv("LC_ALL", "C", 1);
		execl("/bin/sh", "sh", "-c", "ls / | sort | head -3",
		      (char *)NULL);
		_exit(127);
	}
	MT_SYS(close(p[1]));
	while ((n = MT_SYS(read(p[0], buf + len, sizeof(buf) - 1 - len))) > 0)
		len += n;
	buf[len] = '\0';
	MT_SYS(close(p[0]));
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "shell status %#x", st);

	for (l = strtok_r(buf, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		MT_CHECK(nlines < 3, "more than three lines");
		lines[nlines++] = l;
		printf("line %d: %s\n", nlines, l);
	}
	MT_CHECK(nlines == 3, "%d lines", nlines);
	MT_CHECK(strcmp(lines[0], lines[1]) <= 0 &&
			 strcmp(lines[1], lines[2]) <= 0,
		 "lines are not sorted");
	mt_pass();
	return 0;
}
