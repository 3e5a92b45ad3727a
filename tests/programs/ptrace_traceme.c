/* ptrace_traceme: a program that traces its own child, as a debugger does.
 * The child asks to be traced (PTRACE_TRACEME) and stops itself with
 * SIGSTOP; the parent sees the stop, reads the child's memory
 * (PTRACE_PEEKDATA) and registers (PTRACE_GETREGS), writes a variable the
 * child then prints (PTRACE_POKEDATA), and resumes it without the SIGSTOP.
 * The child raises SIGUSR1, which the parent suppresses, and SIGUSR2, which
 * the parent turns into SIGUSR1; then it exits 3, and the parent reaps it.
 * Under mrr the tracing is emulated (src/record/vptrace.c): the output is
 * the native one, at record and at replay. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

static volatile long secret = 0x1234;
static volatile long target = 1;
static volatile sig_atomic_t usr1, usr2;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2++;
}

static int child(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
		return 2;
	/* PTRACE_TRACEME twice: the task has a tracer already */
	if (ptrace(PTRACE_TRACEME, 0, 0, 0) != -1 || errno != EPERM)
		return 4;
	raise(SIGSTOP);
	printf("child: target is %ld after the stop\n", target);
	raise(SIGUSR1);
	raise(SIGUSR2);
	printf("child: usr1 handled %d times, usr2 %d times\n", (int)usr1,
	       (int)usr2);
	return 3;
}

/* The next stop of pid: its signal. */
static int next_stop(pid_t pid)
{
	int st;

	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFSTOPPED(st), "status %#x", st);
	return WSTOPSIG(st);
}

int main(void)
{
	struct user_regs_struct regs;
	siginfo_t si;
	pid_t pid;
	long word;
	int st, sig;

	mt_init();
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(child());
	sig = next_stop(pid);
	MT_CHECK(sig == SIGSTOP, "first stop: %d", sig);
	printf("parent: child stopped with SIGSTOP\n");
	MT_SYS(ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
	MT_CHECK(si.si_signo == SIGSTOP && si.si_pid == pid,
		 "siginfo %d from %d", si.si_signo, (int)si.si_pid);
	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, pid, (void *)&secret, 0);
	MT_CHECK(errno == 0 && word == 0x1234, "peek %lx: %s", word,
		 strerror(errno));
	printf("parent: peeked the child's secret 0x%lx\n", word);
	MT_SYS(ptrace(PTRACE_GETREGS, pid, 0, &regs));
	MT_CHECK(regs.orig_rax == SYS_tgkill || regs.orig_rax == SYS_tkill,
		 "stopped after syscall %lld", (long long)regs.orig_rax);
	printf("parent: the child stopped after its tgkill\n");
	MT_SYS(ptrace(PTRACE_POKEDATA, pid, (void *)&target, (void *)42));
	/* requests on a task that is not its tracee find none */
	MT_CHECK(ptrace(PTRACE_CONT, getpid(), 0, 0) == -1 && errno == ESRCH,
		 "PTRACE_CONT of itself: %s", strerror(errno));
	MT_SYS(ptrace(PTRACE_CONT, pid, 0, 0)); /* SIGSTOP suppressed */
	sig = next_stop(pid);
	MT_CHECK(sig == SIGUSR1, "second stop: %d", sig);
	MT_SYS(ptrace(PTRACE_CONT, pid, 0, 0)); /* SIGUSR1 suppressed */
	sig = next_stop(pid);
	MT_CHECK(sig == SIGUSR2, "third stop: %d", sig);
	MT_SYS(ptrace(PTRACE_CONT, pid, 0, SIGUSR1)); /* turned into USR1 */
	/* an injected signal goes to the handler without a stop of its own */
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %#x", st);
	printf("parent: the child exited with 3\n");
	mt_pass();
	return 0;
}
