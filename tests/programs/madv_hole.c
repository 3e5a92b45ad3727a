/* madv_hole: MADV_DONTNEED over a range with an unmapped hole. The kernel
 * (Linux 6.x) skips the hole, applies the advice to every mapping around
 * it, before and after, and then fails with ENOMEM: the call did work
 * although it failed. A lock after the hole stops it with EINVAL instead,
 * which wins over ENOMEM. */
#include "mrr_test.h"

#include <sys/mman.h>

static char *map3(long pg)
{
	char *p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	int i;

	for (i = 0; i < 4; i++)
		p[i * pg] = 42;
	return p;
}

static void check_call(const char *what, int ret, int err, int want_errno)
{
	printf("%s: ret=%d errno=%s\n", what, ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == want_errno, "%s: ret=%d errno=%d", what,
		 ret, err);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p;
	int ret;

	mt_init();

	/* Hole in the middle: pages 0, 2 and 3 are all dropped. */
	p = map3(pg);
	MT_SYS(munmap(p + pg, pg));
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	check_call("hole at page 1", ret, errno, ENOMEM);
	printf("pages 0 2 3: %d %d %d\n", p[0], p[2 * pg], p[3 * pg]);
	MT_CHECK(p[0] == 0 && p[2 * pg] == 0 && p[3 * pg] == 0,
		 "a page around the hole kept its data");
	MT_SYS(munmap(p, 4 * pg));

	/* Hole first: the mapping after it is still dropped. */
	p = map3(pg);
	MT_SYS(munmap(p, pg));
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	check_call("hole at page 0", ret, errno, ENOMEM);
	printf("pages 1 2 3: %d %d %d\n", p[pg], p[2 * pg], p[3 * pg]);
	MT_CHECK(p[pg] == 0 && p[2 * pg] == 0 && p[3 * pg] == 0,
		 "a page after the hole kept its data");
	MT_SYS(munmap(p + pg, 3 * pg));

	/* Hole last. */
	p = map3(pg);
	MT_SYS(munmap(p + 3 * pg, pg));
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	check_call("hole at page 3", ret, errno, ENOMEM);
	printf("pages 0 1 2: %d %d %d\n", p[0], p[pg], p[2 * pg]);
	MT_CHECK(p[0] == 0 && p[pg] == 0 && p[2 * pg] == 0,
		 "a page before the hole kept its data");
	MT_SYS(munmap(p, 3 * pg));

	/* Hole, then a locked page: pages before the lock dropped, the
	 * locked page and the one after kept, EINVAL. */
	p = map3(pg);
	MT_SYS(munmap(p + pg, pg));
	MT_SYS(mlock(p + 2 * pg, pg));
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	check_call("hole at page 1, lock at page 2", ret, errno, EINVAL);
	printf("pages 0 2 3: %d %d %d\n", p[0], p[2 * pg], p[3 * pg]);
	MT_CHECK(p[0] == 0 && p[2 * pg] == 42 && p[3 * pg] == 42,
		 "wrong pages dropped");
	MT_SYS(munlock(p + 2 * pg, pg));
	MT_SYS(munmap(p, 4 * pg));

	/* Nothing mapped at all. */
	p = map3(pg);
	MT_SYS(munmap(p, 4 * pg));
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	check_call("all unmapped", ret, errno, ENOMEM);
	mt_pass();
	return 0;
}
