/* preempt_altstack: timer signals handled on an alternate signal stack
 * (as stress-ng runs every stressor) land in a loop without syscalls that
 * also faults pages in. Each signal frame stays on the alternate stack
 * after its handler returns, and holds the task's last fault address and
 * trap number, which differ at replay. The replay must go right and
 * report no divergence; the sums printed are the recorded ones. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>

#define SIGNALS 12
#define AREA	(64u << 20)

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

int main(void)
{
	struct itimerval it = {{0, 20000}, {0, 20000}};
	struct sigaction sa;
	stack_t ss;
	uint64_t sum = 0, x = 1;
	unsigned char *area;
	size_t off = 0;

	mt_init();
	ss.ss_sp = MT_SYS(mmap(NULL, 1u << 16, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ss.ss_size = 1u << 16;
	ss.ss_flags = 0;
	MT_SYS(sigaltstack(&ss, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	area = MT_SYS(mmap(NULL, AREA, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (ticks < SIGNALS) {
		for (int i = 0; i < 256; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* a fault now and then: the task's last fault address moves */
		area[off] = (unsigned char)x;
		sum += area[off];
		off = (off + 4096 * 7 + 64) % AREA;
	}
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	printf("sum %llu x %016llx\n", (unsigned long long)sum,
	       (unsigned long long)x);
	mt_pass();
	return 0;
}
