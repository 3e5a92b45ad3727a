/* exec: fork + execve of /bin/echo, /bin/true and /bin/false with their
 * statuses, an execve that fails with ENOENT, and finally an execve of this
 * program itself (via /proc/self/exe) whose second stage prints PASS. */
#include "mrr_test.h"

#include <sys/wait.h>

extern char **environ;

static int run(const char *path, char *const argv[])
{
	pid_t pid;
	int st;

	pid = MT_SYS(fork());
	if (pid == 0) {
		execve(path, argv, environ);
		_exit(127);
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st), "%s died: status %#x", path, st);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	char *echo_argv[] = {"echo", "output", "of", "/bin/echo", NULL};
	char *true_argv[] = {"true", NULL};
	char *false_argv[] = {"false", NULL};
	char *self_argv[] = {argv[0], "--stage2", "from-exec", NULL};
	int st;

	mt_init();
	if (argc == 3 && strcmp(argv[1], "--stage2") == 0) {
		MT_CHECK(strcmp(argv[2], "from-exec") == 0, "argv[2] %s",
			 argv[2]);
		printf("second stage after execve, pid %s\n",
		       getenv("MRR_EXEC_PID") ? "kept" : "lost");
		MT_CHECK(getenv("MRR_EXEC_PID") &&
				 atoi(getenv("MRR_EXEC_PID")) == getpid(),
			 "pid changed across execve");
		mt_pass();
		return 0;
	}

	st = run("/bin/echo", echo_argv);
	MT_CHECK(st == 0, "/bin/echo exited %d", st);
	st = run("/bin/true", true_argv);
	MT_CHECK(st == 0, "/bin/true exited %d", st);
	st = run("/bin/false", false_argv);
	MT_CHECK(st == 1, "/bin/false exited %d", st);
	printf("echo 0, true 0, false 1\n");

	MT_CHECK(execve("/nonexistent/program", true_argv, environ) == -1 &&
			 errno == ENOENT,
		 "execve of a missing file: errno %d", errno);
	printf("execve of a missing file: ENOENT\n");

	char pidbuf[16];
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
	MT_SYS(setenv("MRR_EXEC_PID", pidbuf, 1));
	execve("/proc/self/exe", self_argv, environ);
	MT_CHECK(0, "execve of /proc/self/exe: %s", strerror(errno));
	return 1;
}
