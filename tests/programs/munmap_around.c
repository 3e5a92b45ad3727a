/* A munmap over a large range that, under mrr, holds mrr's page
 * (0x700000000000, 16 KiB): stress-ng's mmap and vm-segv stressors unmap
 * whatever they find, and the recording stopped ("called munmap on mrr's
 * page"). Natively the range holds only the program's two mappings on
 * either side of that address; both must be gone after the call, at record
 * and at replay alike, and the call must return 0. Ranges the kernel
 * refuses (EINVAL: unaligned, or past the top of the address space) must
 * fail as natively, not stop the recording. */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <stdint.h>
#include <sys/mman.h>

#define SPOT   0x700000000000ull
#define SIDE   (64ull << 10)
#define MIDDLE (16ull << 10)

static int mapped(uint64_t addr)
{
	unsigned char v;

	return mincore((void *)addr, 4096, &v) == 0;
}

static void *map_at(uint64_t addr)
{
	void *p =
		mmap((void *)addr, SIDE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	MT_CHECK(p == (void *)addr, "mmap at %#llx: %s",
		 (unsigned long long)addr, strerror(errno));
	memset(p, 0x5a, SIDE);
	return p;
}

int main(void)
{
	uint64_t below = SPOT - SIDE, above = SPOT + MIDDLE;
	int r;

	mt_init();
	map_at(below);
	map_at(above);
	printf("before: below %d, above %d\n", mapped(below), mapped(above));
	r = munmap((void *)below, SIDE + MIDDLE + SIDE);
	MT_CHECK(r == 0, "munmap of the whole span: %s", strerror(errno));
	printf("after: below %d, above %d\n", mapped(below), mapped(above));
	MT_CHECK(!mapped(below) && !mapped(above),
		 "a side is still mapped after munmap");
	/* a range that starts at the spot and goes past it */
	map_at(above);
	MT_CHECK(munmap((void *)SPOT, MIDDLE + SIDE) == 0, "munmap from %#llx",
		 SPOT);
	MT_CHECK(!mapped(above), "the part above is still mapped");
	printf("from the spot up: above %d\n", mapped(above));
	/* ranges the kernel refuses touch nothing, mrr's page included */
	errno = 0;
	MT_CHECK(munmap(NULL, (size_t)-1) == -1 && errno == EINVAL,
		 "munmap(NULL, -1): %s", strerror(errno));
	MT_CHECK(munmap((void *)(SPOT + 1), MIDDLE) == -1 && errno == EINVAL,
		 "an unaligned munmap: %s", strerror(errno));
	printf("refused ranges: EINVAL\n");
	printf("PASS\n");
	return 0;
}
