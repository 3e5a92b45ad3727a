/* mprotect_toggle: 100,000 mprotects over the pages of a small region, each
 * page turned to no access, read-only or read-write in a pseudo-random
 * order, and after every few calls a read and a write of one page under a
 * SIGSEGV handler that counts the faults. The program keeps its own table
 * of what each page allows and checks every access against it, so a
 * replay that left one protection out (a buffered mprotect it did not make
 * again) faults where the recording did not, or the other way round. Under
 * mrr with the syscall buffer the read and write toggles run untraced;
 * with -n every one is a traced syscall. */
/* mrr-test: timeout=240 */
#include "mrr_test.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#define PAGES	    4
#define CALLS	    100000
#define PROBE_EVERY 64

static sigjmp_buf probe_env;
static volatile int faults;

static void on_segv(int sig)
{
	(void)sig;
	faults++;
	siglongjmp(probe_env, 1);
}

/* Whether reading (write 0) or writing (write 1) *p faults. */
static int faults_at(volatile char *p, int write)
{
	if (sigsetjmp(probe_env, 0))
		return 1;
	if (write)
		*p = 1;
	else
		(void)*p;
	return 0;
}

int main(void)
{
	static const int prots[] = {PROT_NONE, PROT_READ,
				    PROT_READ | PROT_WRITE};
	struct sigaction sa = {.sa_handler = on_segv, .sa_flags = SA_NODEFER};
	long pg = sysconf(_SC_PAGESIZE);
	int prot_of[PAGES], expected = 0, probes = 0;
	uint32_t x = 2463534242u;
	char *base;

	mt_init();
	MT_SYS(sigaction(SIGSEGV, &sa, NULL));
	base = MT_SYS(mmap(NULL, PAGES * pg, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	for (int i = 0; i < PAGES; i++)
		prot_of[i] = PROT_READ | PROT_WRITE;
	for (int call = 0; call < CALLS; call++) {
		int first, n, prot, page;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		first = (int)(x % PAGES);
		n = 1 + (int)((x >> 8) % (PAGES - first));
		prot = prots[(x >> 16) % 3];
		MT_SYS(mprotect(base + first * pg, n * pg, prot));
		for (int i = first; i < first + n; i++)
			prot_of[i] = prot;
		if (call % PROBE_EVERY)
			continue;
		page = (int)((x >> 24) % PAGES);
		for (int write = 0; write < 2; write++) {
			int want = write ? !(prot_of[page] & PROT_WRITE)
					 : !(prot_of[page] & PROT_READ);
			int got = faults_at(base + page * pg + 8, write);

			MT_CHECK(got == want,
				 "call %d: %s of page %d with protection %d %s",
				 call, write ? "write" : "read", page,
				 prot_of[page],
				 got ? "faulted" : "did not fault");
			expected += want;
			probes++;
		}
	}
	MT_CHECK(faults == expected, "%d faults, %d expected", faults,
		 expected);
	printf("%d mprotects, %d probes, %d faults\n", CALLS, probes, faults);
	mt_pass();
	return 0;
}
