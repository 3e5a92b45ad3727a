/* preempt_saved_counter: a loop of 1000 turns around a call, whose only
 * trace of the turn is the loop counter that the callee saves in its
 * frame (a callee-saved register), as stress-ng's regs stressor. The
 * callee's registers hold an outer count (which changes every 1000 turns)
 * but nothing that tells the turns of one run of the loop apart. The
 * syscall buffer library's frames, left by a write() just before, lie in a
 * dead slot of the loop's frame, so that the point's hash of the stack
 * above it stops below the saved counter (where the replay's library may
 * have left other bytes); the memory digest must still tell the turns
 * apart, or the replay takes the first turn for the recorded one and
 * diverges later, at a counted point where the outer count has moved at
 * record but not at replay. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <fcntl.h>
#include <alloca.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

static volatile sig_atomic_t stop;
static int null_fd;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

#define SH                                                                     \
	"movdqa %%xmm1, %%xmm0\n\tmovdqa %%xmm2, %%xmm1\n\t"                   \
	"movdqa %%xmm3, %%xmm2\n\tmovdqa %%xmm0, %%xmm3\n\t"
#define SH8  SH SH SH SH SH SH SH SH
#define SH64 SH8 SH8 SH8 SH8 SH8 SH8 SH8 SH8

/* One turn: straight-line work with v in r15 throughout; rbx and r12-r14
 * clobbered, so that the caller's loop counter is saved in this frame,
 * more than 128 bytes above the stack pointer (the local block). */
__attribute__((noipa)) static void turn(uint64_t v)
{
	volatile char block[256];

	block[0] = 0;
	__asm__ volatile(
		"mov %0, %%r15\n\tmov %0, %%rbx\n\t"
		"mov %0, %%r12\n\tmov %0, %%r13\n\tmov %0, %%r14\n\t" SH64 SH64
			SH64 SH64 SH64 SH64 ::"r"(v)
		: "rbx", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2",
		  "xmm3", "memory");
	__asm__ volatile("" ::"r"(block) : "memory");
}

/* The loop, with a dead slot of stale bytes in its frame. */
__attribute__((noinline)) static uint64_t loops(void)
{
	volatile char dead[512];
	uint64_t v = 0;

	__asm__ volatile("" ::"r"(dead) : "memory");
	while (!stop) {
		for (int i = 0; i < 1000 && !stop; i++)
			turn(v);
		v++;
	}
	return v;
}

int main(void)
{
	struct sigaction sa;
	struct itimerval it = {{0, 0}, {0, 500000}};
	uint64_t v;

	mt_init();
	null_fd = open("/dev/null", O_WRONLY);
	MT_CHECK(null_fd >= 0, "open /dev/null");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	MT_SYS(sigaction(SIGALRM, &sa, NULL));
	MT_SYS(setitimer(ITIMER_REAL, &it, NULL));
	{
		/* the frames below at a fixed place in their page: the point
		 * and the saved counter in the same one */
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
		volatile char *pad = alloca(((sp - 0xc00) & 0xfff) + 16);

		pad[0] = 0;
		/* the library's frames where the loop's will be */
		MT_SYS(write(null_fd, "", 0));
		v = loops();
		__asm__ volatile("" ::"r"(pad) : "memory");
	}
	MT_CHECK(v > 0, "no run of the loop before the alarm");
	mt_pass();
	return 0;
}
