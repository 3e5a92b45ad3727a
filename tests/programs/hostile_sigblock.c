/* hostile_sigblock: installs handlers for SIGUSR1, SIGILL and SIGSEGV, then
 * blocks every signal (glibc's internal ones too) and, with everything
 * blocked, sends itself SIGUSR1 and lets a child exit (SIGCHLD). Checks
 * that no handler ran, that the mask and the handlers are exactly as it
 * left them, and that SIGUSR1 and SIGCHLD are pending and can be taken
 * with sigtimedwait. (hostile_sigblock_rdtsc adds rdtsc.) */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile sig_atomic_t handled[65];

static void handler(int sig)
{
	handled[sig]++;
}

static void check_handlers(const char *when)
{
	static const int sigs[] = {SIGUSR1, SIGILL, SIGSEGV};
	struct sigaction sa;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		MT_SYS(sigaction(sigs[i], NULL, &sa));
		MT_CHECK(sa.sa_handler == handler,
			 "%s: the handler of %s is gone (%p)", when,
			 strsignal(sigs[i]), (void *)sa.sa_handler);
		MT_CHECK(handled[sigs[i]] == 0, "%s: the %s handler ran", when,
			 strsignal(sigs[i]));
	}
}

static void check_all_blocked(const char *when)
{
	uint64_t mask = 0;

	MT_SYS(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8));
	/* SIGKILL and SIGSTOP can never be blocked. */
	MT_CHECK(mask == ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1))),
		 "%s: mask is %#llx", when, (unsigned long long)mask);
}

int main(void)
{
	struct sigaction sa;
	struct timespec zero = {0, 0};
	uint64_t all = ~0ull;
	sigset_t pending, want;
	siginfo_t si;
	int st;
	pid_t pid;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));
	MT_SYS(sigaction(SIGILL, &sa, NULL));
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));
	MT_SYS(syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8));
	check_all_blocked("after blocking");

	MT_SYS(kill(getpid(), SIGUSR1));
	pid = MT_SYS(fork());
	if (pid == 0)
		_exit(3);
	MT_CHECK(MT_SYS(waitpid(pid, &st, 0)) == pid, "waitpid");
	MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "status %#x", st);

	check_all_blocked("with signals pending");
	check_handlers("with signals pending");
	MT_SYS(sigpending(&pending));
	MT_CHECK(sigismember(&pending, SIGUSR1), "SIGUSR1 is not pending");
	MT_CHECK(sigismember(&pending, SIGCHLD), "SIGCHLD is not pending");

	sigemptyset(&want);
	sigaddset(&want, SIGUSR1);
	MT_CHECK(MT_SYS(sigtimedwait(&want, &si, &zero)) == SIGUSR1,
		 "sigtimedwait for SIGUSR1");
	MT_CHECK(si.si_pid == getpid(), "SIGUSR1 came from pid %d", si.si_pid);
	sigemptyset(&want);
	sigaddset(&want, SIGCHLD);
	MT_CHECK(MT_SYS(sigtimedwait(&want, &si, &zero)) == SIGCHLD,
		 "sigtimedwait for SIGCHLD");
	MT_CHECK(si.si_pid == pid && si.si_status == 3,
		 "SIGCHLD for pid %d status %d", si.si_pid, si.si_status);
	printf("SIGUSR1 and SIGCHLD were held and taken with sigtimedwait\n");

	MT_SYS(sigemptyset(&want));
	MT_SYS(sigprocmask(SIG_SETMASK, &want, NULL));
	check_handlers("after unblocking");
	mt_pass();
	return 0;
}
