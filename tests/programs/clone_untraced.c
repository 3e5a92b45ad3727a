/* clone_untraced: clone and clone3 with CLONE_UNTRACED, which stress-ng's
 * clone stressor sets among its random flags. Natively the flag does
 * nothing (no tracer); under mrr it used to let the child run unrecorded,
 * and the replay failed at the fork ("fork failed at replay"). The
 * children write to a pipe and exit with a status the parent checks. */
#include "mrr_test.h"

#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void child_body(int fd, int code)
{
	char c = (char)('0' + code);

	if (write(fd, &c, 1) != 1)
		syscall(SYS_exit_group, 99);
	syscall(SYS_exit_group, code);
}

static void reap(long pid, int fd, int code)
{
	char c = 0;
	int st;

	MT_CHECK(pid > 0, "clone: %s", strerror(errno));
	MT_CHECK(read(fd, &c, 1) == 1 && c == '0' + code, "read %d", c);
	MT_CHECK(MT_SYS(waitpid((pid_t)pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == code,
		 "expected exit %d, status %#x", code, st);
}

int main(void)
{
	struct clone_args ca;
	uint64_t flags_seen;
	long pid;
	int p[2];

	mt_init();
	MT_SYS(pipe(p));

	pid = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0)
		child_body(p[1], 3);
	reap(pid, p[0], 3);

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_UNTRACED;
	ca.exit_signal = SIGCHLD;
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		child_body(p[1], 4);
	flags_seen = ca.flags;
	reap(pid, p[0], 4);
	MT_CHECK(flags_seen == CLONE_UNTRACED,
		 "clone3's flags changed to %#llx",
		 (unsigned long long)flags_seen);
	printf("2 untraced children reaped\n");
	mt_pass();
	return 0;
}
