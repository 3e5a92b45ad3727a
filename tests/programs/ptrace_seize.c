/* ptrace_seize: a tracer that seizes its running child (PTRACE_SEIZE with
 * PTRACE_O_TRACESYSGOOD and PTRACE_O_TRACEEXEC), stops it with
 * PTRACE_INTERRUPT, writes the flag the child spins on, then follows its
 * syscalls with PTRACE_SYSCALL and PTRACE_GET_SYSCALL_INFO: it counts the
 * entry and exit stops of the child's five getppid calls (writing a
 * variable the child prints at the third entry), sees the exec
 * event (PTRACE_GETEVENTMSG gives the pid), and lets the exec'd child run
 * to its exit. Under mrr the tracing is emulated (src/record/vptrace.c):
 * the output is the native one, at record and at replay. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile long stop_flag, mark;

static int child(int fd, const char *self)
{
	char c;
	int i;

	if (read(fd, &c, 1) != 1)
		return 2;
	while (!stop_flag)
		syscall(SYS_sched_yield);
	for (i = 0; i < 5; i++)
		syscall(SYS_getppid);
	printf("child: mark is %ld\n", mark);
	execl(self, self, "exec", (char *)NULL);
	return 4;
}

static int wait_stop(pid_t pid)
{
	int st;

	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFSTOPPED(st), "status %#x", st);
	return st >> 8;
}

/* PTRACE_INTERRUPT of a child blocked in read (or about to be): it stops,
 * and once resumed reads the byte written after. */
static void interrupt_blocked(void)
{
	int fds[2], st, what;
	pid_t pid;
	char c;

	MT_SYS(pipe(fds));
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(read(fds[0], &c, 1) == 1 && c == 'y' ? 6 : 2);
	MT_SYS(ptrace(PTRACE_SEIZE, pid, 0, 0));
	MT_SYS(ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	what = wait_stop(pid);
	MT_CHECK(what == (SIGTRAP | (PTRACE_EVENT_STOP << 8)), "stop %#x",
		 what);
	MT_SYS(ptrace(PTRACE_CONT, pid, 0, 0));
	MT_CHECK(write(fds[1], "y", 1) == 1, "write: %s", strerror(errno));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 6, "status %#x", st);
	printf("tracer: interrupted a child in read, which then read on\n");
	close(fds[0]);
	close(fds[1]);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A tracer waiting for its tracee gets a signal: its wait fails with
 * EINTR (no SA_RESTART), as natively, and it waits again. */
static void wait_interrupted(void)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct itimerval it = {.it_value = {.tv_usec = 20000}};
	int fds[2], st;
	pid_t pid;
	char c;

	MT_SYS(pipe(fds));
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(read(fds[0], &c, 1) == 1 ? 7 : 2);
	MT_SYS(ptrace(PTRACE_SEIZE, pid, 0, 0));
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	MT_CHECK(waitpid(pid, &st, 0) == -1 && errno == EINTR, "waitpid: %s",
		 strerror(errno));
	MT_CHECK(write(fds[1], "z", 1) == 1, "write: %s", strerror(errno));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %#x", st);
	printf("tracer: its wait was interrupted by SIGALRM\n");
	close(fds[0]);
	close(fds[1]);
}

int main(int argc, char **argv)
{
	struct __ptrace_syscall_info info;
	int fds[2], st, what, entries = 0, exits = 0, other = 0;
	unsigned long msg = 0;
	pid_t pid;
	long n;

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		printf("exec'd child runs\n");
		return 5;
	}
	mt_init();
	interrupt_blocked();
	wait_interrupted();
	MT_SYS(pipe(fds));
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(child(fds[0], argv[0]));
	MT_SYS(ptrace(PTRACE_SEIZE, pid, 0,
		      PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC));
	MT_CHECK(write(fds[1], "x", 1) == 1, "write: %s", strerror(errno));
	MT_SYS(ptrace(PTRACE_INTERRUPT, pid, 0, 0));
	what = wait_stop(pid);
	MT_CHECK(what == (SIGTRAP | (PTRACE_EVENT_STOP << 8)), "stop %#x",
		 what);
	printf("tracer: the child stopped for PTRACE_INTERRUPT\n");
	MT_SYS(ptrace(PTRACE_POKEDATA, pid, (void *)&stop_flag, (void *)1));
	MT_SYS(ptrace(PTRACE_SYSCALL, pid, 0, 0));
	for (;;) {
		what = wait_stop(pid);
		if (what == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			MT_SYS(ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg));
			break;
		}
		MT_CHECK(what == (SIGTRAP | 0x80), "stop %#x", what);
		n = MT_SYS(ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info),
				  &info));
		if (info.op == PTRACE_SYSCALL_INFO_ENTRY &&
		    info.entry.nr == SYS_getppid && entries++ == 2)
			/* a write at a syscall-entry stop */
			MT_SYS(ptrace(PTRACE_POKEDATA, pid, (void *)&mark,
				      (void *)9));
		else if (info.op == PTRACE_SYSCALL_INFO_EXIT &&
			 info.exit.rval == getpid())
			exits++;
		else if (info.op != PTRACE_SYSCALL_INFO_ENTRY &&
			 info.op != PTRACE_SYSCALL_INFO_EXIT)
			other++;
		MT_CHECK(n > 0, "info size %ld", n);
		MT_SYS(ptrace(PTRACE_SYSCALL, pid, 0, 0));
	}
	printf("tracer: getppid entry stops %d, exit stops %d, others %d\n",
	       entries, exits, other);
	MT_CHECK(msg == (unsigned long)pid, "event message %lu", msg);
	printf("tracer: exec event of the child\n");
	MT_SYS(ptrace(PTRACE_CONT, pid, 0, 0));
	MT_CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 5, "status %#x", st);
	printf("tracer: the child exited with 5\n");
	mt_pass();
	return 0;
}
