/* ptrace_attach_running: PTRACE_ATTACH while the tracee runs user code,
 * and the tracee then blocks in a call that never returns by itself.
 *
 * The child computes for a while without any syscall, then pause()s; the
 * parent attaches while it computes, so the ATTACH's SIGSTOP arrives in
 * user code (hostile_tracer attach meets this only under load, when its
 * child is slow to reach its pause). Natively the child stops for its
 * tracer at once; the parent's waitpid sees the SIGSTOP, and it kills the
 * child. Under mrr the SIGSTOP was held back for the child's next syscall
 * exit, which pause never reaches: the recording hung, tracer in wait4,
 * tracee in pause. The usleep only makes the SIGSTOP land in the loop;
 * the result is the same wherever it lands.
 */
#include "mrr_test.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static volatile unsigned long sink;

int main(void)
{
	int st = 0;
	pid_t pid;

	mt_init();
	pid = MT_SYS(fork());
	if (pid == 0) {
		/* about 50 ms of work without a syscall */
		for (unsigned long i = 0; i < 60000000ul; i++)
			sink += i ^ (sink >> 3);
		pause();
		_exit(3);
	}
	usleep(10000);
	MT_SYS(ptrace(PTRACE_ATTACH, pid, 0, 0));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP, "status %#x", st);
	printf("child stopped with %s\n", strsignal(WSTOPSIG(st)));
	MT_SYS(kill(pid, SIGKILL));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status %#x", st);
	puts("attached child killed");
	mt_pass();
	return 0;
}
