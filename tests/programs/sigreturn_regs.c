/* sigreturn_regs: rt_sigreturn gives the program the registers its signal
 * frame holds, whatever they are. A handler puts into the interrupted rax
 * values that the kernel uses for "restart this call" (-512 to -516): after
 * rt_sigreturn they are plain values (the kernel restarts nothing, as its
 * orig_rax is -1), but the replay took them for an interrupted call's result
 * and made the rt_sigreturn again. A second signal, blocked while the first
 * one's handler runs and raised there, is delivered as rt_sigreturn
 * returns, before any user code: its handler has run by the time the raw
 * tkill statement ends. The loop is the shape of LTP signal06's (tkill of
 * itself, handler, rt_sigreturn), which the recorder makes in three ptrace
 * stops.
 *
 * mrr-test: args="600"
 */
#include "mrr_test.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>

static volatile long set_rax;
static volatile int raise_second;
static volatile long firsts, seconds;
static pid_t tid;

static void on_first(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	(void)si;
	firsts++;
	uc->uc_mcontext.gregs[REG_RAX] = set_rax;
	uc->uc_mcontext.gregs[REG_RDX] = ~set_rax;
	if (raise_second) /* blocked here (sa_mask): pending until sigreturn */
		syscall(SYS_tkill, tid, SIGUSR2);
}

static void on_second(int sig)
{
	(void)sig;
	seconds++;
}

int main(int argc, char **argv)
{
	static const long values[] = {-512, -513, -514, -515, -516,
				      0,    42,	  -4,	-1};
	const int nvalues = (int)(sizeof(values) / sizeof(values[0]));
	long rounds = argc > 1 ? atol(argv[1]) : 600;
	struct sigaction sa;

	mt_init();
	tid = (pid_t)syscall(SYS_gettid);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_second;
	MT_SYS(sigaction(SIGUSR2, &sa, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_first;
	sa.sa_flags = SA_SIGINFO;
	sigaddset(&sa.sa_mask, SIGUSR2);
	MT_SYS(sigaction(SIGUSR1, &sa, NULL));

	for (long r = 0; r < rounds; r++) {
		long want = values[r % nvalues], rax, rdx = 7;
		long seconds_before = seconds;

		set_rax = want;
		raise_second = (int)(r / nvalues) % 2;
		/* a raw syscall: nothing between the call and the check */
		__asm__ volatile("syscall"
				 : "=a"(rax), "+d"(rdx)
				 : "a"((long)SYS_tkill), "D"((long)tid),
				   "S"((long)SIGUSR1)
				 : "rcx", "r11", "memory");
		MT_CHECK(rax == want, "round %ld: rax %ld, the handler set %ld",
			 r, rax, want);
		MT_CHECK(rdx == ~want, "round %ld: rdx %ld", r, rdx);
		MT_CHECK(seconds == seconds_before + raise_second,
			 "round %ld: %ld second signals, %ld before", r,
			 seconds, seconds_before);
	}
	MT_CHECK(firsts == rounds, "%ld handlers ran", (long)firsts);
	printf("%ld rounds, %ld second signals at rt_sigreturn\n", rounds,
	       (long)seconds);
	mt_pass();
	return 0;
}
