/* preempt_stack_garbage: a timer signal lands in a loop whose frame holds
 * bytes a buffered call left below the program's stack pointer. At record
 * the syscall buffer library decides whether it may buffer a read by
 * fstat'ing the descriptor into a struct stat on its stack; at replay it
 * only copies the recorded result, and that struct is never written. The
 * loop's function has a large frame it never fully writes, over those
 * dead bytes, and the recorded preemption point hashes the whole stack
 * above the point to tell the loop's executions apart: the search at
 * replay found no matching execution and reported a false divergence
 * ("the task stopped with status 0x7057f before reaching the preemption
 * point": stress-ng's cpu, tree, jpeg, vecshuf did). The library's return
 * addresses, which mrr's recorder takes as a sign of its bytes, are
 * overwritten before (in stress-ng, by later frames of the program; here
 * by forget_code_pointers()). The iteration counts printed are the
 * recorded ones. Linked with -z now: ld.so's lazy resolver leaves bytes in
 * the same stack that differ from run to run (bind-now in CMakeLists.txt),
 * and a replay reported them (1 run in 10 as nobody). */
/* mrr-test: timeout=120 bind-now=1 */
#include "mrr_test.h"

#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#define ROUNDS	  3
#define MAX_CODE  64
#define DEAD_SPAN 8192

static volatile sig_atomic_t stop;
static uintptr_t code_lo[MAX_CODE], code_hi[MAX_CODE];
static int ncode;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

static int note_code(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum && ncode < MAX_CODE; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		code_lo[ncode] = info->dlpi_addr + ph->p_vaddr;
		code_hi[ncode] = code_lo[ncode] + ph->p_memsz;
		ncode++;
	}
	return 0;
}

/* A buffered call made a little deeper than main, as stress-ng's helpers
 * make theirs. */
__attribute__((noinline)) static long read_one(int fd)
{
	char c;

	return read(fd, &c, 1);
}

/* Zeroes every word of the dead stack below this frame that points into
 * code: the return addresses the calls before left there, as the frames
 * of later calls overwrite them. Other bytes stay. */
__attribute__((noinline)) static void forget_code_pointers(void)
{
	volatile uint64_t *sp = __builtin_frame_address(0);

	for (size_t i = 32; i < DEAD_SPAN / 8; i++) {
		uint64_t w = sp[-(long)i];

		for (int k = 0; k < ncode; k++)
			if (w >= code_lo[k] && w < code_hi[k])
				sp[-(long)i] = 0;
	}
}

/* Counts in rbx (compared at every point) until the handler sets stop,
 * in a frame that spans the dead bytes without writing them. Each round
 * of the loop is 64 multiplications long, so that the replay's search,
 * which stops at every execution of the point's instruction, stays short. */
__attribute__((noinline)) static uint64_t spin_until_stop(void)
{
	uint64_t frame[DEAD_SPAN / 8 / 2];
	uint64_t n = 0, x = 3;

	__asm__ volatile("" : : "r"(frame) : "memory");
	__asm__ volatile("1: incq %0\n\t"
			 ".rept 64\n\t"
			 "imulq %1, %1\n\t"
			 ".endr\n\t"
			 "testl $1, %2\n\t"
			 "jz 1b"
			 : "+b"(n), "+d"(x)
			 : "m"(stop)
			 : "cc");
	return n;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 60000}};
	int fd;

	mt_init();
	dl_iterate_phdr(note_code, NULL);
	fd = MT_SYS(open("/proc/self/exe", O_RDONLY));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t n;

		stop = 0;
		MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
		MT_CHECK(read_one(fd) == 1, "pread returned otherwise");
		forget_code_pointers();
		n = spin_until_stop();
		MT_CHECK(n > 0, "the loop ran %llu times",
			 (unsigned long long)n);
		printf("round %d: %llu iterations\n", round,
		       (unsigned long long)n);
	}
	close(fd);
	mt_pass();
	return 0;
}
