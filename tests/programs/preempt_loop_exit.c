/* preempt_loop_exit: a timer signal ends work that stays for a long time in
 * one function without syscalls, in hot loops where mrr cannot count an
 * instruction (a debug exception per execution made stress-ng's stream,
 * prefetch, vdso and far-branch stressors a thousand times slower at
 * record, past any timeout). Three rounds, each under a 100 ms
 * ITIMER_REAL whose handler sets a flag:
 *   1. nested loops without calls: an outer loop on the flag around a
 *      counted loop over a large array, around a short counted loop (its
 *      exit runs too often to count: the middle loop's exit serves);
 *   2. calls through function pointers into small functions spread over
 *      many code pages (as stress-ng's far-branch), in a counted loop
 *      inside a loop on the flag;
 *   3. a counted loop that also polls the flag, so that it ends only
 *      after the signal: mrr must not wait for an exit there.
 * Each round prints how much work ran and a checksum; the replay must
 * print the recorded ones. The handler checks what it sees. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>

#define N	 (1u << 20)
#define PAGES	 64
#define PER_PAGE 8

static volatile sig_atomic_t stop;
static volatile uint64_t seen_rounds;
static volatile uint64_t cur_rounds;
static uint64_t arr[N];

static void on_alarm(int sig)
{
	(void)sig;
	seen_rounds = cur_rounds;
	stop = 1;
}

/* Round 1: the innermost loop runs 4 times per element group (its exit is
 * hot), the middle one over the whole array. */
__attribute__((noinline)) static uint64_t nested(uint64_t *rounds)
{
	uint64_t sum = 0, r = 0;

	while (!stop) {
		for (uint64_t i = 0; i < N; i += 4) {
			for (int k = 0; k < 4; k++) {
				arr[i + k] =
					arr[i + k] * 6364136223846793005ull +
					i + (uint64_t)k;
				sum += arr[i + k] >> 7;
			}
		}
		r++;
		cur_rounds = r;
	}
	*rounds = r;
	return sum;
}

typedef uint64_t (*fn_t)(uint64_t);

/* Round 2: small functions in many code pages, each adding its own
 * constant: mov rax, rdi; add rax, imm32; ret. */
static fn_t *make_functions(int *count)
{
	uint8_t *code = mmap(NULL, (size_t)PAGES * 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fn_t *fns = calloc(PAGES * PER_PAGE, sizeof(*fns));
	int n = 0;

	MT_CHECK(code != MAP_FAILED && fns, "cannot map the functions");
	for (int pg = 0; pg < PAGES; pg++) {
		for (int f = 0; f < PER_PAGE; f++) {
			uint8_t *at = code + pg * 4096 + f * 512;
			uint32_t imm = (uint32_t)(pg * PER_PAGE + f + 1);

			at[0] = 0x48; /* mov %rdi,%rax */
			at[1] = 0x89;
			at[2] = 0xf8;
			at[3] = 0x48; /* add $imm,%rax */
			at[4] = 0x05;
			memcpy(at + 5, &imm, 4);
			at[9] = 0xc3; /* ret */
			fns[n++] = (fn_t)(void *)at;
		}
	}
	MT_SYS(mprotect(code, (size_t)PAGES * 4096, PROT_READ | PROT_EXEC));
	*count = n;
	return fns;
}

__attribute__((noinline)) static uint64_t far_calls(fn_t *fns, int n,
						    uint64_t *rounds)
{
	uint64_t x = 1, r = 0;

	while (!stop) {
		for (uint64_t i = 0; i < 200000; i++)
			x = fns[(i * 7) % (uint64_t)n](x) * 3;
		r++;
		cur_rounds = r;
	}
	*rounds = r;
	return x;
}

/* Round 3: a counted loop whose bound is far away also polls the flag:
 * it ends only after the signal (no exit to wait for). A few dependent
 * multiplications per iteration keep the first point's search at replay
 * (among the iterations of a short slice) short. */
#define MIX(x) x = x * 2862933555777941757ull + 3037000493ull
__attribute__((noinline)) static uint64_t poll_in_counted(uint64_t *iters)
{
	uint64_t x = 7, i;

	for (i = 0; i < (1ull << 60); i++) {
		MIX(x);
		MIX(x);
		MIX(x);
		MIX(x);
		MIX(x);
		MIX(x);
		MIX(x);
		MIX(x);
		if (stop)
			break;
	}
	*iters = i;
	return x;
}

static void arm(void)
{
	struct itimerval it = {{0, 0}, {0, 100000}};

	stop = 0;
	cur_rounds = 0;
	seen_rounds = 0;
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
}

int main(void)
{
	struct sigaction sa;
	uint64_t rounds, sum;
	fn_t *fns;
	int nfns;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	fns = make_functions(&nfns);

	arm();
	sum = nested(&rounds);
	MT_CHECK(seen_rounds == rounds || seen_rounds + 1 == rounds,
		 "nested: the handler saw %llu rounds, the loop ran %llu",
		 (unsigned long long)seen_rounds, (unsigned long long)rounds);
	printf("nested: %llu rounds, sum %016llx\n", (unsigned long long)rounds,
	       (unsigned long long)sum);

	arm();
	sum = far_calls(fns, nfns, &rounds);
	MT_CHECK(seen_rounds == rounds || seen_rounds + 1 == rounds,
		 "far calls: the handler saw %llu rounds, the loop ran %llu",
		 (unsigned long long)seen_rounds, (unsigned long long)rounds);
	printf("far calls: %llu rounds, x %016llx\n",
	       (unsigned long long)rounds, (unsigned long long)sum);

	arm();
	sum = poll_in_counted(&rounds);
	MT_CHECK(rounds > 0, "no iteration before the alarm");
	printf("polling: %llu iterations, x %016llx\n",
	       (unsigned long long)rounds, (unsigned long long)sum);
	mt_pass();
	return 0;
}
