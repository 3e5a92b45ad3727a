/* preempt_chain_walk: a timer signal ends work whose hot loop walks hash
 * chains as zlib's longest_match does: a do-while whose condition, the
 * head that `continue` jumps back to, has two exits (the next node is
 * past the limit, or the chain's counter runs out), and whose bottom test
 * compares a byte the chain leads to. mrr took it for a loop that may not
 * end (the bottom test reads memory) and counted an instruction of its
 * body, one debug exception per turn: stress-ng's zlib stressor did not
 * finish recording in 60 s, against 1.2 s natively. Its exit (where the
 * head's tests jump) runs once per walk, and the C loop around the walks
 * tests a bound in memory (as deflate_slow's loop tests the input left):
 * no outer loop's exit may serve, so the walk's must, though it runs
 * often.
 *
 * A 100 ms ITIMER_REAL's handler sets the flag, which the C loop tests
 * between rounds of 16384 walks. Prints the rounds and the matches found;
 * the replay must print the recorded ones, and the handler checks it saw
 * the round count the loop ended with. */
/* mrr-test: timeout=60 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

/* uint32_t mrr_chain(const uint16_t *prev, const uint8_t *win, uint32_t cur,
 * uint32_t limit, uint32_t chain, uint32_t byte): follows cur =
 * prev[cur] while cur > limit, at most chain nodes; returns how many of
 * them had win[cur] == byte. */
__asm__(".text\n"
	".globl mrr_chain\n"
	".type mrr_chain,@function\n"
	"mrr_chain:\n"
	"	push %rbx\n"
	"	mov %rdi,%rbx\n"
	"	mov %rsi,%r10\n"
	"	mov %edx,%esi\n"
	"	mov %r8d,%edi\n"
	"	mov %r9d,%r11d\n"
	"	mov %ecx,%r9d\n"
	"	xor %eax,%eax\n"
	"	jmp 3f\n"
	"1:	and $0xffff,%esi\n"
	"	movzwl (%rbx,%rsi,2),%esi\n"
	"	cmp %esi,%r9d\n"
	"	jae 2f\n"
	"	sub $1,%edi\n"
	"	je 2f\n"
	"3:	mov %esi,%ecx\n"
	"	add %r10,%rcx\n"
	"	cmp %r11b,(%rcx)\n"
	"	jne 1b\n"
	"	add $1,%eax\n"
	"	jmp 1b\n"
	"2:	pop %rbx\n"
	"	ret\n"
	".size mrr_chain,.-mrr_chain\n");

uint32_t mrr_chain(const uint16_t *prev, const uint8_t *win, uint32_t cur,
		   uint32_t limit, uint32_t chain, uint32_t byte);

#define SIZE  65536
#define WALKS 16384

static volatile sig_atomic_t stop;
static volatile uint64_t cur_rounds, seen_rounds;
static volatile uint32_t left; /* walks left in the round */
static uint16_t prev[SIZE];
static uint8_t win[SIZE];

static void on_alarm(int sig)
{
	(void)sig;
	seen_rounds = cur_rounds;
	stop = 1;
}

static uint64_t one_round(uint64_t round)
{
	uint64_t matches = 0;

	left = WALKS;
	while (left != 0) {
		uint32_t i = WALKS - left;
		uint32_t at = (uint32_t)((i + round * WALKS) * 2654435761u);

		matches += mrr_chain(prev, win, at & (SIZE - 1), i & 0xff, 1024,
				     win[(at >> 16) & (SIZE - 1)]);
		left = left - 1;
	}
	return matches;
}

int main(void)
{
	struct itimerval it = {{0, 0}, {0, 100000}};
	struct sigaction sa;
	uint64_t rounds = 0, matches = 0, x = 88172645463325252ull;

	mt_init();
	for (uint32_t i = 0; i < SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		prev[i] = (uint16_t)x;
		win[i] = (uint8_t)(x >> 32);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (!stop) {
		matches += one_round(rounds);
		rounds++;
		cur_rounds = rounds;
	}
	MT_CHECK(seen_rounds == rounds || seen_rounds + 1 == rounds,
		 "the handler saw %llu rounds, the loop ran %llu",
		 (unsigned long long)seen_rounds, (unsigned long long)rounds);
	printf("chains: %llu rounds, %llu matches\n",
	       (unsigned long long)rounds, (unsigned long long)matches);
	mt_pass();
	return 0;
}
