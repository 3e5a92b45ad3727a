/* sigframe_loop [ROUNDS]: the whole shape of LTP signal06, ROUNDS (default
 * 30,000) times: the main thread keeps a double in a register across a raw
 * tkill of itself with SIGHUP, whose handler runs on an alternate signal
 * stack, while a second thread makes that stack read-only and writable
 * again with mprotect; a SIGHUP whose frame cannot be written there becomes
 * a SIGSEGV, handled on the ordinary stack. Under mrr each round is a
 * traced tkill, one or two recorded signals and a traced rt_sigreturn, and
 * the second thread's mprotects are buffered. Prints the signals of each
 * kind; fails if the double changed. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VALUE 123.456

static char altstack[4096 * 10] __attribute__((aligned(4096)));
static volatile int done;
static volatile long hups, segvs;

static void on_hup(int sig)
{
	(void)sig;
	hups++;
}

static void on_segv(int sig)
{
	(void)sig;
	segvs++;
}

static void *toggler(void *arg)
{
	(void)arg;
	while (!done) {
		if (mprotect(altstack, sizeof(altstack), PROT_READ) != 0 ||
		    mprotect(altstack, sizeof(altstack),
			     PROT_READ | PROT_WRITE) != 0) {
			perror("mprotect");
			exit(1);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 30000, r;
	stack_t st = {.ss_sp = altstack, .ss_size = sizeof(altstack)};
	struct sigaction sa = {0};
	pid_t tid = (pid_t)syscall(SYS_gettid);
	double d = VALUE;
	pthread_t th;

	sa.sa_handler = on_segv;
	if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaltstack(&st, NULL) != 0)
		return perror("sigaction"), 1;
	sa.sa_handler = on_hup;
	sa.sa_flags = SA_ONSTACK;
	if (sigaction(SIGHUP, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	if (pthread_create(&th, NULL, toggler, NULL) != 0)
		return perror("pthread_create"), 1;
	for (r = 0; r < rounds && d == VALUE; r++) {
		long unused;

		/* the double stays in an xmm register across the call */
		__asm__ volatile("syscall"
				 : "=a"(unused), "+x"(d)
				 : "a"((long)SYS_tkill), "D"((long)tid),
				   "S"((long)SIGHUP)
				 : "rcx", "r11", "memory");
	}
	done = 1;
	pthread_join(th, NULL);
	if (r != rounds) {
		fprintf(stderr, "sigframe_loop: the double changed at %ld\n",
			r);
		return 1;
	}
	printf("%ld rounds: %ld SIGHUP handled, %ld SIGSEGV\n", rounds,
	       (long)hups, (long)segvs);
	return 0;
}
