/* hostile_stackoverflow: overflows its stack on purpose, three times, and
 * recovers each time: a SIGSEGV handler running on an alternate signal
 * stack (sigaltstack) siglongjmps back out of the recursion. The fault is
 * the program's own, so a replay must hit it at the same depth. */
#include "mrr_test.h"

#include <setjmp.h>
#include <signal.h>

static sigjmp_buf back;
static volatile int depth;

static void on_segv(int sig)
{
	siglongjmp(back, 1);
}

static __attribute__((noinline)) int recurse(int n)
{
	volatile char frame[4096];

	frame[0] = (char)n;
	depth = n;
	if (n == 1 << 30) /* never: the stack ends long before */
		return 0;
	return recurse(n + 1) + frame[0];
}

int main(void)
{
	static char alt[65536];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt)};
	struct sigaction sa;
	volatile int first = 0;

	mt_init();
	MT_SYS(sigaltstack(&ss, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));
	for (int round = 0; round < 3; round++) {
		if (sigsetjmp(back, 1) == 0)
			recurse(0);
		MT_CHECK(depth > 100, "the stack overflowed at depth %d",
			 depth);
		if (round == 0)
			first = depth;
		MT_CHECK(depth == first,
			 "round %d overflowed at depth %d, the "
			 "first at %d",
			 round, depth, first);
		printf("round %d: the stack overflowed and the handler got us "
		       "back\n",
		       round);
	}
	mt_pass();
	return 0;
}
