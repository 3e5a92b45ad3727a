/* preempt_syscalls: the shape of a stress-ng stressor. A SIGALRM handler is
 * installed first, so mrr makes preemption points in every stretch of user
 * code; then many syscalls (mmap of shared memory, buffered getuid and
 * writes from a deep stack frame, munmap) with short computations between
 * them, and big memsets (rep stos, which page faults make slow: a point
 * must never land between two of its iterations). At the end a timer
 * signal lands in a loop without syscalls. The replay must find every
 * point: the sums printed are the recorded ones. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>

#define ROUNDS 16
#define MAPLEN (4u << 20)

static volatile sig_atomic_t stop;
static volatile uint64_t seen;
static volatile uint64_t iter;

static void on_alarm(int sig)
{
	(void)sig;
	seen = iter;
	stop = 1;
}

/* A bit-mask loop as stress-ng's setup runs one (no syscall). */
__attribute__((noinline)) static uint32_t mask_loop(uint32_t n, uint32_t seed)
{
	uint32_t acc = 0;

	for (uint32_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 32; b++)
			if ((seed >> b) & 1 & i)
				acc |= 1u << b, acc += i;
	return acc;
}

/* Some work per iteration of the last loop, so that the replay's search
 * for the first point in it (one stop per execution) stays short. */
__attribute__((noinline)) static uint64_t lcg_rounds(uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* Buffered calls from a frame with a large local array it never fully
 * writes: the library leaves its own bytes in the stack below. */
__attribute__((noinline)) static long deep_calls(int fd, int round)
{
	volatile char pad[2048];
	char msg[32];
	long sum = 0;
	int len;

	pad[round % 64] = (char)round;
	for (int i = 0; i < 8; i++)
		sum += getuid() + getgid();
	len = snprintf(msg, sizeof(msg), "round %d\n", round);
	sum += MT_SYS(write(fd, msg, (size_t)len));
	return sum + pad[round % 64];
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 30000}};
	uint64_t total = 0, x = 1;
	int fd;

	mt_init();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	fd = MT_SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
	for (int round = 0; round < ROUNDS; round++) {
		unsigned char *p =
			MT_SYS(mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0));

		memset(p, round + 1, MAPLEN);
		total += p[round * 4097 % MAPLEN];
		total += (uint64_t)deep_calls(fd, round);
		total += mask_loop(100 + 20u * (unsigned)round,
				   0x9e3779b9u * (unsigned)round);
		MT_SYS(mprotect(p, 4096, PROT_READ));
		total += p[4095];
		MT_SYS(munmap(p, MAPLEN));
	}
	printf("total %llu\n", (unsigned long long)total);
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	while (!stop) {
		x = lcg_rounds(x);
		iter++;
	}
	MT_CHECK(seen > 0 && seen <= iter, "seen %llu of %llu",
		 (unsigned long long)seen, (unsigned long long)iter);
	printf("alarm after %llu iterations, x=%016llx\n",
	       (unsigned long long)seen, (unsigned long long)x);
	mt_pass();
	return 0;
}
