/* fork_wait: fork and vfork children and the ways of waiting for them:
 * wait4 with rusage, waitpid on any child, WNOHANG, and ECHILD once none
 * is left. Children check getppid() and report through their exit status. */
#include "mrr_test.h"

#include <sys/resource.h>
#include <sys/wait.h>

int main(void)
{
	struct rusage ru;
	pid_t self = getpid(), pid, got;
	int st;

	mt_init();
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(getppid() == self ? 7 : 1);
	got = MT_SYS(wait4(pid, &st, 0, &ru));
	MT_CHECK(got == pid, "wait4 returned %d, wanted %d", (int)got,
		 (int)pid);
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	printf("fork child exited with %d\n", WEXITSTATUS(st));

	/* Two children at once, reaped in any order by waitpid(-1). */
	pid_t kids[2];
	int seen = 0;
	for (int i = 0; i < 2; i++) {
		kids[i] = MT_SYS(fork());
		if (kids[i] == 0)
			_exit(20 + i);
	}
	for (int i = 0; i < 2; i++) {
		got = MT_SYS(waitpid(-1, &st, 0));
		MT_CHECK(WIFEXITED(st), "status %#x", st);
		int k = got == kids[0] ? 0 : got == kids[1] ? 1 : -1;
		MT_CHECK(k >= 0 && WEXITSTATUS(st) == 20 + k,
			 "pid %d status %#x", (int)got, st);
		seen |= 1 << k;
	}
	MT_CHECK(seen == 3, "reaped set %#x", seen);
	printf("reaped two children with waitpid(-1)\n");

	got = waitpid(-1, &st, WNOHANG);
	MT_CHECK(got == -1 && errno == ECHILD, "waitpid gave %d errno %d",
		 (int)got, errno);

	pid = vfork();
	MT_CHECK(pid != -1, "vfork: %s", strerror(errno));
	if (pid == 0)
		_exit(3);
	got = MT_SYS(waitpid(pid, &st, 0));
	MT_CHECK(got == pid && WIFEXITED(st) && WEXITSTATUS(st) == 3,
		 "vfork child %d status %#x", (int)got, st);
	printf("vfork child exited with %d\n", WEXITSTATUS(st));
	mt_pass();
	return 0;
}
