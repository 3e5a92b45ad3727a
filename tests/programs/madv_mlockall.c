/* madv_mlockall: mlockall(MCL_CURRENT | MCL_FUTURE), then a new mapping is
 * locked (and populated) from birth. MADV_DONTNEED over it fails with EINVAL
 * and changes nothing, as in rr issue 3667 where a trace's earlier mlockall
 * made a later madvise fail. After munlockall the same call succeeds and
 * zeroes the pages. */
#include "mrr_test.h"

#include <sys/mman.h>
#include <sys/resource.h>

#define NPAGES 4

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char vec[NPAGES];
	struct rlimit rl;
	char *p;
	int ret, err, i;

	mt_init();
	/* Everything the process maps counts against RLIMIT_MEMLOCK. */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		MT_SYS(setrlimit(RLIMIT_MEMLOCK, &rl));
	}
	MT_SYS(mlockall(MCL_CURRENT | MCL_FUTURE));
	printf("mlockall(MCL_CURRENT | MCL_FUTURE) done\n");

	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	MT_SYS(mincore(p, NPAGES * pg, vec));
	for (i = 0; i < NPAGES; i++)
		MT_CHECK(vec[i] & 1,
			 "page %d of a new locked mapping is not "
			 "resident",
			 i);
	printf("new mapping: all %d pages resident\n", NPAGES);
	for (i = 0; i < NPAGES; i++)
		p[i * pg] = (char)(10 + i);

	ret = madvise(p, NPAGES * pg, MADV_DONTNEED);
	err = errno;
	printf("madvise(MADV_DONTNEED) while locked: ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	for (i = 0; i < NPAGES; i++)
		MT_CHECK(p[i * pg] == 10 + i,
			 "page %d reads %d after a failed "
			 "madvise",
			 i, p[i * pg]);
	printf("pages after: %d %d %d %d\n", p[0], p[pg], p[2 * pg], p[3 * pg]);

	MT_SYS(munlockall());
	ret = MT_SYS(madvise(p, NPAGES * pg, MADV_DONTNEED));
	printf("madvise(MADV_DONTNEED) after munlockall: ret=%d\n", ret);
	for (i = 0; i < NPAGES; i++)
		MT_CHECK(p[i * pg] == 0, "page %d reads %d after the drop", i,
			 p[i * pg]);
	printf("pages after: %d %d %d %d\n", p[0], p[pg], p[2 * pg], p[3 * pg]);
	MT_SYS(munmap(p, NPAGES * pg));
	mt_pass();
	return 0;
}
