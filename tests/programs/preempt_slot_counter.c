/* preempt_slot_counter: a timer signal ends work whose hot loop mrr can
 * only leave through an exit of the function's outer loop, whose counter
 * lives in a stack slot (`subl $1,4(%rsp); jne`), and whose hot inner loop
 * sits in a block placed after the function's ret that jumps back into the
 * outer loop. That is the shape of stress-ng's l1cache stressor as gcc
 * compiled it, which mrr took for loops that may not end and so counted an
 * instruction of the inner loop (one debug exception per iteration: the
 * recording did not end in 60 s, against 1.3 s natively).
 *
 * A 100 ms ITIMER_REAL's handler sets a flag that the C loop around the
 * assembly function tests. Prints the rounds and a checksum of the buffer;
 * the replay must print the recorded ones, and the handler checks it saw
 * the round count the loop ended with. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

/* uint64_t walk(uint8_t *buf, uint64_t len, uint64_t stride): 40000 passes
 * over buf adding 1 to every stride'th byte; returns the last pointer. */
__asm__(".text\n"
	".globl mrr_walk\n"
	".type mrr_walk,@function\n"
	"mrr_walk:\n"
	"	sub $24,%rsp\n"
	"	movl $40000,4(%rsp)\n"
	"	lea (%rdi,%rsi),%r8\n"
	"1:	mov %rdi,%rax\n"
	"	cmp $1,%rdx\n"
	"	jne 3f\n"
	"2:	addb $1,(%rax)\n"
	"	add $1,%rax\n"
	"	cmp %r8,%rax\n"
	"	jb 2b\n"
	"4:	subl $1,4(%rsp)\n"
	"	jne 1b\n"
	"	add $24,%rsp\n"
	"	ret\n"
	"3:	addb $1,(%rax)\n"
	"	add %rdx,%rax\n"
	"	cmp %r8,%rax\n"
	"	jb 3b\n"
	"	jmp 4b\n"
	".size mrr_walk,.-mrr_walk\n");

uint64_t mrr_walk(uint8_t *buf, uint64_t len, uint64_t stride);

#define LEN 512

static volatile sig_atomic_t stop;
static volatile uint64_t cur_rounds, seen_rounds;
static uint8_t buf[LEN];

static void on_alarm(int sig)
{
	(void)sig;
	seen_rounds = cur_rounds;
	stop = 1;
}

int main(void)
{
	struct itimerval it = {{0, 0}, {0, 100000}};
	struct sigaction sa;
	uint64_t rounds = 0, sum = 0;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (!stop) {
		mrr_walk(buf, LEN, 1 + (rounds & 1) * 3);
		rounds++;
		cur_rounds = rounds;
	}
	MT_CHECK(seen_rounds == rounds || seen_rounds + 1 == rounds,
		 "the handler saw %llu rounds, the loop ran %llu",
		 (unsigned long long)seen_rounds, (unsigned long long)rounds);
	for (int i = 0; i < LEN; i++)
		sum = sum * 31 + buf[i];
	printf("walk: %llu rounds, sum %016llx\n", (unsigned long long)rounds,
	       (unsigned long long)sum);
	mt_pass();
	return 0;
}
