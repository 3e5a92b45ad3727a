/* madv_seed: the reproducer from rr issue 3667. Three private anonymous
 * pages, the first and third hold 42, the middle one is locked. A
 * MADV_DONTNEED over all three zaps the first page, stops at the locked one
 * and fails with EINVAL, so the third page keeps its 42. A replay that
 * ignores the lock, or skips the failed call, diverges here. */
#include "mrr_test.h"

#include <sys/mman.h>

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p;
	int *first, *third;
	int ret, err;

	mt_init();
	p = MT_SYS(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	first = (int *)p;
	third = (int *)(p + 2 * pg);
	*first = 42;
	*third = 42;
	MT_SYS(mlock(p + pg, pg));
	printf("first=%d third=%d, middle page locked\n", *first, *third);

	ret = madvise(p, 3 * pg, MADV_DONTNEED);
	err = errno;
	printf("madvise(MADV_DONTNEED) over 3 pages: ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	printf("first=%d middle=%d third=%d\n", *first, *(int *)(p + pg),
	       *third);
	MT_CHECK(*first == 0, "first page reads %d, not dropped", *first);
	MT_CHECK(*third == 42, "third page reads %d, dropped", *third);
	MT_CHECK(*(int *)(p + pg) == 0, "locked page changed");

	MT_SYS(munlock(p + pg, pg));
	MT_SYS(munmap(p, 3 * pg));
	mt_pass();
	return 0;
}
