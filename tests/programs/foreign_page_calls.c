/* foreign_page_calls: munmap, mprotect and madvise over 0x700000000000,
 * where nothing of the program's is mapped: natively munmap succeeds and
 * the others fail with ENOMEM. mrr keeps a page of its own there; on it
 * these calls must act the same (issue 10: stress-ng's munmap stressor,
 * which unmaps every mapping it finds in /proc/self/maps, stopped the
 * recording). */
#include "mrr_test.h"

#include <sys/mman.h>

#define ADDR ((void *)0x700000000000ull)

int main(void)
{
	int r;

	mt_init();
	r = mprotect(ADDR, 4096, PROT_READ | PROT_WRITE);
	MT_CHECK(r == -1 && errno == ENOMEM, "mprotect gave %d errno %d", r,
		 errno);
	r = madvise(ADDR, 4096, MADV_DONTNEED);
	MT_CHECK(r == -1 && errno == ENOMEM, "madvise gave %d errno %d", r,
		 errno);
	r = munmap(ADDR, 4096);
	MT_CHECK(r == 0, "munmap gave %d errno %d", r, errno);
	printf("munmap 0, mprotect and madvise ENOMEM, as over nothing\n");
	mt_pass();
	return 0;
}
