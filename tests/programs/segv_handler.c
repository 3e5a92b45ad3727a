/* segv_handler: faults that a SIGSEGV handler recovers from with
 * siglongjmp: a read of a PROT_NONE page, a write to a read-only page and a
 * read near NULL. Checks si_signo, si_code and si_addr of each fault, that
 * the signal mask is restored, and that the page works once made writable. */
#include "mrr_test.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile sig_atomic_t faults;
static void *volatile fault_addr;
static volatile int fault_code, fault_signo;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	faults++;
	fault_signo = si->si_signo;
	fault_code = si->si_code;
	fault_addr = si->si_addr;
	siglongjmp(env, 1);
}

/* Runs one faulting access; returns after the handler jumped back. */
static void expect_fault(const char *what, void *addr, int write, int code)
{
	int before = faults;
	sigset_t mask;

	if (sigsetjmp(env, 1) == 0) {
		if (write)
			*(volatile int *)addr = 42;
		else
			(void)*(volatile int *)addr;
		MT_CHECK(0, "%s at %p did not fault", what, addr);
	}
	MT_CHECK(faults == before + 1, "%d faults", (int)faults);
	MT_CHECK(fault_signo == SIGSEGV, "si_signo %d", fault_signo);
	MT_CHECK(fault_addr == addr, "si_addr %p, access was at %p", fault_addr,
		 addr);
	MT_CHECK(fault_code == code, "si_code %d, wanted %d", fault_code, code);
	MT_SYS(sigprocmask(SIG_BLOCK, NULL, &mask));
	MT_CHECK(!sigismember(&mask, SIGSEGV), "SIGSEGV still blocked");
	printf("%s: SIGSEGV code %s at page offset %#lx\n", what,
	       code == SEGV_MAPERR ? "MAPERR" : "ACCERR",
	       (unsigned long)((uintptr_t)addr & 0xfff));
}

int main(void)
{
	struct sigaction sa;
	long pg = sysconf(_SC_PAGESIZE);
	char *none, *ro;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));

	none = MT_SYS(
		mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ro = MT_SYS(
		mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

	expect_fault("read of a PROT_NONE page", none + 24, 0, SEGV_ACCERR);
	expect_fault("write to a read-only page", ro + 128, 1, SEGV_ACCERR);
	MT_CHECK(ro[128] == 0, "read-only page was changed");
	expect_fault("read near NULL", (void *)16, 0, SEGV_MAPERR);

	MT_SYS(mprotect(ro, pg, PROT_READ | PROT_WRITE));
	ro[128] = 7;
	MT_CHECK(ro[128] == 7, "write after mprotect lost");
	MT_SYS(munmap(none, pg));
	MT_SYS(munmap(ro, pg));
	printf("%d faults handled\n", (int)faults);
	mt_pass();
	return 0;
}
