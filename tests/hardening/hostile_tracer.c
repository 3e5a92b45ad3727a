/* hostile_tracer: a program that traces another process itself, as
 * strace, gdb and sandboxes do. Its child asks to be traced
 * (PTRACE_TRACEME) and stops; the parent sees the stop, resumes it with
 * PTRACE_CONT and reaps it. With "attach" the parent instead attaches to a
 * running child with PTRACE_ATTACH. With "pokeuser" the parent writes the
 * stopped child's user area (PTRACE_POKEUSER), which mrr does not emulate.
 *
 * mrr is the tracer of every recorded process, and a process has one
 * tracer: mrr emulates the program's tracing (src/record/vptrace.c), so
 * the first two record and replay as they run natively; what it does not
 * emulate must stop the recording at once (exit 69) with one sentence
 * naming the request, never run on with different results or hang. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "FAIL: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int attach = argc > 1 && !strcmp(argv[1], "attach");
	int pokeuser = argc > 1 && !strcmp(argv[1], "pokeuser");
	int st;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		if (!attach && ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(2);
		if (!attach)
			raise(SIGSTOP);
		else
			pause();
		_exit(0);
	}
	if (attach && ptrace(PTRACE_ATTACH, pid, 0, 0) < 0)
		return fail("PTRACE_ATTACH");
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return fail("the child did not stop for its tracer");
	printf("child stopped with %s\n", strsignal(WSTOPSIG(st)));
	if (attach) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		printf("attached child killed\n");
	} else {
		/* the user area's rax (offset 80): the child does not use it */
		if (pokeuser && ptrace(PTRACE_POKEUSER, pid, (void *)80, 0) < 0)
			return fail("PTRACE_POKEUSER");
		if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
			return fail("PTRACE_CONT");
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			return fail("the child did not exit 0");
		printf("child resumed and exited 0\n");
	}
	puts("PASS");
	return 0;
}
