/* preempt_shared_turns: a loop whose turns differ only in a counter kept in
 * a shared anonymous mapping (as stress-ng keeps its bogo-op counters, which
 * its parent reads): each turn calls tiny functions that return their
 * argument from several call sites, the same number of times, so that at
 * any instruction of a turn the registers, the stack and the private memory
 * are those of every other turn (with divisions of constants between them,
 * where most of the time goes). A timer signal, handled on an alternate
 * signal stack (as stress-ng does), ends the loop.
 *
 * mrr's first preemption point in such a loop is found again at replay by
 * its registers and stack (a search), and then by counted executions. The
 * memory digest that tells a search's turns apart left out shared mappings,
 * and was not taken at all once the program had an alternate signal stack,
 * so the replay stopped at the first turn that matched, turns before the
 * recorded one (stress-ng funcret: 'eflags is 0x10287, recorded 0x10283' at
 * a later counted point, where the flags of the loop's compare with the
 * shared counter showed it, in about half the replays). Four rounds, each
 * in a loop of its own code (its own first point), must print the recorded
 * number of turns. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>

#define ROUNDS 4
/* calls of the tiny functions per turn: 3 * INNER */
#define INNER 16

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* The shared counter of turns. */
static volatile uint64_t *turns;

/* x back, through a register the compiler cannot see through. */
__attribute__((noinline)) static uint64_t same(uint64_t x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) static uint64_t same_twice(uint64_t x)
{
	return same(same(x));
}

static volatile uint64_t divisor = 3;

#define DIV4(y)                                                                \
	y = y / d + 0x9e3779b97f4a7c15ull;                                     \
	y = y / d + 0x7f4a7c159e3779b9ull;                                     \
	y = y / d + 0x3c6ef372fe94f82bull;                                     \
	y = y / d + 0xa54ff53a5f1d36f1ull

/* The same value at every call, from a fraction of a microsecond of
 * divisions without a loop: each instruction runs once a call, so that a
 * search at replay stops at few executions per turn. */
__attribute__((noinline)) static uint64_t work(void)
{
	uint64_t d = divisor, y = 1;

	DIV4(y);
	DIV4(y);
	DIV4(y);
	DIV4(y);
	DIV4(y);
	DIV4(y);
	DIV4(y);
	DIV4(y);
	return y;
}

/* A loop of its own code per round: its first point is a search. */
#define SPIN(name)                                                             \
	__attribute__((noinline)) static uint64_t name(uint64_t x)             \
	{                                                                      \
		while (!stop) {                                                \
			for (int i = INNER; i; i--) {                          \
				x = same(x);                                   \
				x ^= work();                                   \
				x = same_twice(x);                             \
				x ^= work();                                   \
				__asm__ volatile("" : "+r"(i));                \
			}                                                      \
			/* in memory only: no register holds the count */      \
			__asm__ volatile("incq %0" : "+m"(*turns));            \
		}                                                              \
		return x;                                                      \
	}

SPIN(spin0)
SPIN(spin1)
SPIN(spin2)
SPIN(spin3)

static uint64_t (*const spins[ROUNDS])(uint64_t) = {spin0, spin1, spin2, spin3};

int main(void)
{
	struct itimerval it = {{0, 0}, {0, 60000}};
	struct sigaction sa;
	stack_t ss;
	uint64_t x = 0x8af31f0630ed45a2ull;

	mt_init();
	turns = MT_SYS(mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	ss.ss_sp = MT_SYS(mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ss.ss_size = 65536;
	ss.ss_flags = 0;
	MT_SYS(sigaltstack(&ss, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_ONSTACK;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t before = *turns;

		stop = 0;
		MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
		x = spins[r](x);
		MT_CHECK(x == 0x8af31f0630ed45a2ull, "round %d: x is 0x%llx", r,
			 (unsigned long long)x);
		MT_CHECK(*turns > before, "round %d: no turn", r);
		printf("round %d: %llu turns\n", r,
		       (unsigned long long)(*turns - before));
	}
	mt_pass();
	return 0;
}
