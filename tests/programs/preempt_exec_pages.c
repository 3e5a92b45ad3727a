/* preempt_exec_pages: code in a few hundred executable mappings, preempted
 * by a timer. The program maps NPAGES pages of its own code, each its own
 * mapping (every other page of a region is executable, the pages between
 * stay writable, so the kernel cannot merge them), low in the address
 * space: the program's binary and its libraries come after them in
 * /proc/PID/maps, as in stress-ng's far-branch stressor, whose ~384 pages
 * land anywhere. Each page holds a small function (a few multiplications
 * and a ret); the main loop calls each page's function CALLS times in a
 * row while a periodic ITIMER_REAL signal with a handler interrupts it,
 * mostly in those functions, with the main loop's return address on the
 * stack. The recorder finds the loop around such a point through that
 * return address (its exit is counted instead of the function's hot code),
 * but it looked only at the first 64 executable mappings: without the
 * main loop's, each point was searched among the function's executions,
 * and the recording ran past the test's timeout. The program prints a
 * checksum of the work (the same in every run) and the number of signals
 * (the replay must repeat the recorded one). */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>

/* Executable pages, and the region that holds them with a page between
 * each two, below where a position-independent executable or a library is
 * loaded. */
#define NPAGES	384
#define REGION	((void *)0x10000000ul)
#define PAGE_SZ 4096ul
#define SWEEPS	200
#define CALLS	1000 /* calls of a page's function in a row */
#define REPS	4    /* multiplications in a page's function */

#define MUL 6364136223846793005ull

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks = ticks + 1;
}

typedef uint64_t (*page_fn)(uint64_t);

/* Writes into p the function
 *	mov %rdi,%rax; movabs $MUL,%rdx
 *	imul %rdx,%rax; add $k,%rax	(REPS times)
 *	ret
 * which returns x after REPS turns of x = x * MUL + k. */
static void write_fn(uint8_t *p, uint32_t k)
{
	uint64_t mul = MUL;
	size_t n = 0;

	p[n++] = 0x48, p[n++] = 0x89, p[n++] = 0xf8; /* mov %rdi,%rax */
	p[n++] = 0x48, p[n++] = 0xba;		     /* movabs $mul,%rdx */
	memcpy(p + n, &mul, 8), n += 8;
	for (int r = 0; r < REPS; r++) {
		p[n++] = 0x48, p[n++] = 0x0f, p[n++] = 0xaf;
		p[n++] = 0xc2;		      /* imul %rdx,%rax */
		p[n++] = 0x48, p[n++] = 0x05; /* add $k,%rax */
		memcpy(p + n, &k, 4), n += 4;
	}
	p[n++] = 0xc3; /* ret */
}

/* The same function in C, for the check. */
static uint64_t fn_in_c(uint64_t x, uint32_t k)
{
	for (int r = 0; r < REPS; r++)
		x = x * MUL + k;
	return x;
}

__attribute__((noinline)) static uint64_t sweep(page_fn *fn, uint64_t x)
{
	for (int i = 0; i < NPAGES; i++)
		for (int j = 0; j < CALLS; j++)
			x = fn[i](x);
	return x;
}

int main(void)
{
	static page_fn fn[NPAGES];
	struct itimerval it = {{0, 2000}, {0, 2000}}, off = {{0, 0}, {0, 0}};
	struct sigaction sa;
	uint64_t x = 1, want = 1;
	uint8_t *region;

	mt_init();
	region = MT_SYS(
		mmap(REGION, 2 * NPAGES * PAGE_SZ, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
	MT_CHECK(region == REGION, "the region is at %p", (void *)region);
	for (int i = 0; i < NPAGES; i++) {
		uint8_t *p = region + 2 * i * PAGE_SZ;

		write_fn(p, 2 * (uint32_t)i + 1);
		MT_SYS(mprotect(p, PAGE_SZ, PROT_READ | PROT_EXEC));
		fn[i] = (page_fn)(void *)p;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	for (int s = 0; s < SWEEPS; s++)
		x = sweep(fn, x);
	MT_SYS(setitimer(ITIMER_REAL, &off, NULL));
	for (int s = 0; s < SWEEPS; s++)
		for (int i = 0; i < NPAGES; i++)
			for (int j = 0; j < CALLS; j++)
				want = fn_in_c(want, 2 * (uint32_t)i + 1);
	MT_CHECK(x == want, "checksum %016llx, computed in C %016llx",
		 (unsigned long long)x, (unsigned long long)want);
	printf("checksum %016llx\n", (unsigned long long)x);
	printf("signals %d\n", (int)ticks);
	mt_pass();
	return 0;
}
