/* hostile_ptrace: tries to become a tracer or a tracee itself.
 *
 * Natively these calls may well succeed (a root or same-user process may
 * attach to its parent); under mrr, which already traces the program, they
 * must fail with EPERM and the program must carry on. So what must happen
 * depends on the TracerPid line of /proc/self/status:
 *   - traced: PTRACE_TRACEME, and PTRACE_ATTACH and PTRACE_SEIZE of the
 *     parent, must all fail with EPERM (success would stop the tracer, whose
 *     tracee then waits for it forever);
 *   - not traced: each is tried in a child, on the child's own parent (this
 *     process), and a success is undone: the attached parent is waited for
 *     and detached, a TRACEME child just exits.
 * Either way a forked child tries the same (a child of a traced program is
 * traced too), and both the parent and the child must go on making syscalls
 * afterwards. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static pid_t tracer_pid(void)
{
	char line[256];
	pid_t pid = -1;
	FILE *f = fopen("/proc/self/status", "re");

	MT_CHECK(f != NULL, "cannot open /proc/self/status: %s",
		 strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	fclose(f);
	MT_CHECK(pid >= 0, "no TracerPid line in /proc/self/status");
	return pid;
}

/* Under a tracer: every attempt must fail with EPERM. */
static void traced_checks(const char *who)
{
	pid_t parent = getppid();
	long r;

	errno = 0;
	r = ptrace(PTRACE_TRACEME, 0, 0, 0);
	MT_CHECK(r == -1 && errno == EPERM,
		 "%s: PTRACE_TRACEME returned %ld, errno %d", who, r, errno);
	errno = 0;
	r = ptrace(PTRACE_ATTACH, parent, 0, 0);
	MT_CHECK(r == -1 && errno == EPERM,
		 "%s: PTRACE_ATTACH of the parent returned %ld, errno %d", who,
		 r, errno);
	errno = 0;
	r = ptrace(PTRACE_SEIZE, parent, 0, 0);
	MT_CHECK(r == -1 && errno == EPERM,
		 "%s: PTRACE_SEIZE of the parent returned %ld, errno %d", who,
		 r, errno);
	printf("%s: TRACEME, ATTACH and SEIZE of the parent refused\n", who);
}

/* Not traced: attach to the parent for real, then let it go. Runs in a
 * child whose parent is blocked in waitpid for it. Returns the exit code
 * for the child. */
static int untraced_attach_parent(void)
{
	pid_t parent = getppid();
	int st;

	if (ptrace(PTRACE_ATTACH, parent, 0, 0) < 0)
		return errno == EPERM ? 0 : 20;
	if (waitpid(parent, &st, __WALL) != parent || !WIFSTOPPED(st))
		return 21;
	if (ptrace(PTRACE_DETACH, parent, 0, 0) < 0)
		return 22;
	return 0;
}

static void run_child(int (*fn)(void), const char *what)
{
	pid_t pid = MT_SYS(fork());
	int st;

	if (pid == 0) {
		fflush(stdout);
		_exit(fn());
	}
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s child: status %#x",
		 what, st);
}

static int child_traceme(void)
{
	if (tracer_pid() != 0) {
		traced_checks("child");
		return 0;
	}
	/* Our parent becomes our tracer; we exit before anything could
	 * stop us. */
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0 && errno != EPERM)
		return 10;
	return 0;
}

static int child_attach(void)
{
	if (tracer_pid() != 0)
		return 0; /* child_traceme did the traced checks */
	return untraced_attach_parent();
}

int main(void)
{
	pid_t pid_before = getpid(), tracer;

	mt_init();
	tracer = tracer_pid();
	if (tracer != 0)
		traced_checks("main");
	run_child(child_traceme, "TRACEME");
	run_child(child_attach, "ATTACH parent");

	/* Still alive and still making syscalls. */
	MT_CHECK(getpid() == pid_before, "pid changed");
	MT_CHECK(tracer_pid() == tracer, "TracerPid changed from %d",
		 (int)tracer);
	printf("ptrace tries done, %s\n", tracer ? "traced" : "not traced");
	mt_pass();
	return 0;
}
