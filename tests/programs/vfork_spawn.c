/* vfork_spawn: the ways a program starts another through a shared address
 * space, each followed at once by more work in the parent, so that the
 * parent's next call races the child's exec (issue 10: replay hung when
 * the trace had the parent's next event before the child's exec):
 * vfork+execve, vfork+_exit, clone(CLONE_VM|CLONE_VFORK)+execve,
 * posix_spawn and a vfork whose first execve fails before one succeeds. */
#include "mrr_test.h"

#include <sched.h>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

static int reap(pid_t pid)
{
	int st;
	pid_t got = MT_SYS(waitpid(pid, &st, 0));

	MT_CHECK(got == pid, "waitpid returned %d, wanted %d", (int)got,
		 (int)pid);
	MT_CHECK(WIFEXITED(st), "child %d status %#x", (int)pid, st);
	return WEXITSTATUS(st);
}

static char clone_stack[64 * 1024] __attribute__((aligned(16)));

static int clone_child(void *arg)
{
	char *argv[] = {"true", NULL};

	(void)arg;
	execve("/bin/true", argv, environ);
	_exit(127);
}

static void vfork_exec_true(void)
{
	char *argv[] = {"true", NULL};
	pid_t pid = vfork();

	MT_CHECK(pid != -1, "vfork: %s", strerror(errno));
	if (pid == 0) {
		execve("/bin/true", argv, environ);
		_exit(127);
	}
	/* work in the parent right after the child's exec */
	MT_CHECK(getpid() > 0, "getpid");
	MT_CHECK(reap(pid) == 0, "vfork+execve child failed");
}

int main(void)
{
	char *true_argv[] = {"true", NULL};
	char *echo_argv[] = {"echo", "spawned echo", NULL};
	pid_t pid;
	int i;

	mt_init();
	for (i = 0; i < 3; i++)
		vfork_exec_true();
	printf("vfork+execve: 3 children ran /bin/true\n");

	pid = vfork();
	MT_CHECK(pid != -1, "vfork: %s", strerror(errno));
	if (pid == 0)
		_exit(42);
	MT_CHECK(reap(pid) == 42, "vfork+_exit status");
	printf("vfork+_exit: status 42\n");

	/* The first execve fails (ENOENT), as a shell's PATH search does. */
	pid = vfork();
	MT_CHECK(pid != -1, "vfork: %s", strerror(errno));
	if (pid == 0) {
		execve("/nonexistent/true", true_argv, environ);
		execve("/bin/true", true_argv, environ);
		_exit(127);
	}
	MT_CHECK(reap(pid) == 0, "PATH-search child failed");
	printf("vfork with a failed execve first: ran /bin/true\n");

	pid = clone(clone_child, clone_stack + sizeof(clone_stack),
		    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	MT_CHECK(pid != -1, "clone: %s", strerror(errno));
	MT_CHECK(reap(pid) == 0, "clone(CLONE_VFORK) child failed");
	printf("clone(CLONE_VM|CLONE_VFORK): ran /bin/true\n");

	fflush(stdout);
	MT_CHECK(posix_spawn(&pid, "/bin/echo", NULL, NULL, echo_argv,
			     environ) == 0,
		 "posix_spawn failed");
	MT_CHECK(reap(pid) == 0, "posix_spawn child failed");
	printf("posix_spawn: echo exited 0\n");
	mt_pass();
	return 0;
}
