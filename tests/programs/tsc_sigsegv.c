/* tsc_sigsegv: a program that asks for rdtsc to fault itself
 * (prctl(PR_SET_TSC, PR_TSC_SIGSEGV)) must get the SIGSEGV it gets natively,
 * though mrr makes rdtsc trap for its own reasons and emulates it. Its
 * handler runs for rdtsc and for rdtscp (si_code SI_KERNEL, as the kernel
 * sends it), the rdtsc with PR_TSC_ENABLE afterwards runs, and a child that
 * has no handler dies of SIGSEGV. Where the kernel ignores PR_SET_TSC (some
 * VMs), rdtsc does not fault natively, and the program says so instead
 * (tests/e2e/tsc_modes.sh compares the answer with the native one).
 */
#include "mrr_test.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static sigjmp_buf back;
static volatile sig_atomic_t got_code, got_sig;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	siglongjmp(back, 1);
}

static uint64_t do_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t do_rdtscp(void)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((uint64_t)hi << 32) | lo;
}

/* 1 when f faulted with SIGSEGV (SI_KERNEL), 0 when it ran. */
static int faults(uint64_t (*f)(void))
{
	got_sig = 0;
	got_code = 0;
	if (sigsetjmp(back, 1) == 0) {
		f();
		return 0;
	}
	MT_CHECK(got_sig == SIGSEGV && got_code == SI_KERNEL,
		 "signal %d si_code %d", (int)got_sig, (int)got_code);
	return 1;
}

int main(void)
{
	struct sigaction sa;
	int st, rdtsc_faults, rdtscp_faults;
	pid_t pid;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));

	MT_CHECK(faults(do_rdtsc) == 0, "rdtsc faulted before PR_SET_TSC");
	MT_SYS(prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0));
	rdtsc_faults = faults(do_rdtsc);
	rdtscp_faults = faults(do_rdtscp);
	MT_CHECK(rdtsc_faults == rdtscp_faults, "rdtsc %d, rdtscp %d",
		 rdtsc_faults, rdtscp_faults);
	printf("rdtsc with PR_TSC_SIGSEGV: %s\n",
	       rdtsc_faults ? "SIGSEGV" : "runs (PR_SET_TSC ignored here)");

	pid = MT_SYS(fork());
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		do_rdtsc();
		_exit(0);
	}
	MT_SYS(waitpid(pid, &st, 0));
	if (rdtsc_faults)
		MT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
			 "child status %#x", st);
	else
		MT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "child status %#x", st);
	printf("child without a handler: %s\n",
	       WIFSIGNALED(st) ? "killed by SIGSEGV" : "exited 0");

	MT_SYS(prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0));
	MT_CHECK(faults(do_rdtsc) == 0, "rdtsc faulted after PR_TSC_ENABLE");
	printf("rdtsc with PR_TSC_ENABLE: runs\n");
	mt_pass();
	return 0;
}
