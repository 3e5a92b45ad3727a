/* mremap_garbage_r8: libc's mremap passes r8 on as the new address
 * whenever MREMAP_FIXED or MREMAP_DONTUNMAP is set, so a call with
 * MREMAP_DONTUNMAP and no fifth argument hands the kernel whatever r8
 * held: a hint, or EINVAL when it is not page-aligned. Through the syscall
 * buffer r8 holds one thing at record and another at replay. The replay
 * must not call that a divergence, and must give the program the recorded
 * outcome: the mapping where it went, its data moved, the old range left
 * mapped and empty; or the recorded failure.
 */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

int main(void)
{
	size_t len = 2 * 4096;
	char *old = MT_SYS(mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	struct timespec ts;
	long ret;

	mt_init();
	memset(old, 'x', len);
	clock_gettime(CLOCK_MONOTONIC, &ts); /* buffered under mrr */
	{
		/* set after the call, which may use r10 */
		register long flags __asm__("r10") =
			MREMAP_MAYMOVE | MREMAP_DONTUNMAP;

		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "a"((long)SYS_mremap), "D"(old), "S"(len),
				   "d"(len), "r"(flags)
				 : "rcx", "r11", "memory");
	}
	if (ret < 0 && ret > -4096) {
		MT_CHECK(ret == -EINVAL, "mremap: %s", strerror((int)-ret));
		MT_CHECK(old[0] == 'x', "a failed mremap moved the data");
		printf("failed: r8 was not a page address\n");
	} else {
		char *new = (char *)ret;

		MT_CHECK(new[0] == 'x' && new[len - 1] == 'x', "data lost");
		if (new == old) {
			printf("left in place\n");
		} else {
			MT_CHECK(old[0] == 0 && old[len - 1] == 0,
				 "the old range still holds data");
			printf("moved; the old range is mapped and empty\n");
		}
	}
	mt_pass();
	return 0;
}
