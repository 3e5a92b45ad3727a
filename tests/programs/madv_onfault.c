/* madv_onfault: two other ways to lock memory. mlock2(MLOCK_ONFAULT) locks
 * a page only once it is touched, yet MADV_DONTNEED still stops at the
 * (non-resident) locked page with EINVAL after zapping the pages before it.
 * A MAP_LOCKED mapping is locked and populated at mmap; MADV_DONTNEED over
 * it fails with EINVAL and changes nothing. */
#include "mrr_test.h"

#include <sys/mman.h>

static void show_resident(const char *what, char *p, long pg, int n)
{
	unsigned char vec[8];
	int i;

	MT_SYS(mincore(p, n * pg, vec));
	printf("%s resident:", what);
	for (i = 0; i < n; i++)
		printf(" %d", vec[i] & 1);
	printf("\n");
}

static int resident(char *p, long pg, int i)
{
	unsigned char v;

	MT_SYS(mincore(p + i * pg, pg, &v));
	return v & 1;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p;
	int ret, err, i;

	mt_init();

	/* Onfault lock on the middle page, which is never touched. */
	p = MT_SYS(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 42;
	p[2 * pg] = 42;
	MT_SYS(mlock2(p + pg, pg, MLOCK_ONFAULT));
	show_resident("onfault, middle untouched:", p, pg, 3);
	MT_CHECK(!resident(p, pg, 1), "MLOCK_ONFAULT populated the page");
	ret = madvise(p, 3 * pg, MADV_DONTNEED);
	err = errno;
	printf("onfault, middle untouched: madvise ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	printf("pages: %d %d %d\n", p[0], p[pg], p[2 * pg]);
	MT_CHECK(p[0] == 0 && p[2 * pg] == 42, "first %d third %d", p[0],
		 p[2 * pg]);
	MT_SYS(munlock(p + pg, pg));
	MT_SYS(munmap(p, 3 * pg));

	/* Onfault lock on all four pages, two of them touched first. */
	p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 1;
	p[2 * pg] = 3;
	MT_SYS(mlock2(p, 4 * pg, MLOCK_ONFAULT));
	p[3 * pg] = 4; /* faulted in after the lock: locked now */
	show_resident("onfault, all locked:", p, pg, 4);
	MT_CHECK(resident(p, pg, 0) && !resident(p, pg, 1) &&
			 resident(p, pg, 2) && resident(p, pg, 3),
		 "unexpected residency");
	ret = madvise(p, 4 * pg, MADV_DONTNEED);
	err = errno;
	printf("onfault, all locked: madvise ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	MT_CHECK(!resident(p, pg, 1), "a failed madvise populated a page");
	printf("pages: %d %d %d %d\n", p[0], p[pg], p[2 * pg], p[3 * pg]);
	MT_CHECK(p[0] == 1 && p[pg] == 0 && p[2 * pg] == 3 && p[3 * pg] == 4,
		 "data changed");
	MT_SYS(munlock(p, 4 * pg));
	MT_SYS(munmap(p, 4 * pg));

	/* MAP_LOCKED: populated and locked by mmap. */
	p = MT_SYS(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0));
	show_resident("MAP_LOCKED:", p, pg, 3);
	for (i = 0; i < 3; i++) {
		MT_CHECK(resident(p, pg, i), "MAP_LOCKED page %d absent", i);
		p[i * pg] = (char)(20 + i);
	}
	ret = madvise(p, 3 * pg, MADV_DONTNEED);
	err = errno;
	printf("MAP_LOCKED: madvise ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	printf("pages: %d %d %d\n", p[0], p[pg], p[2 * pg]);
	for (i = 0; i < 3; i++)
		MT_CHECK(p[i * pg] == 20 + i, "page %d changed", i);

	/* MAP_LOCKED in the middle of an ordinary mapping: the seed again. */
	MT_SYS(munmap(p, 3 * pg));
	p = MT_SYS(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	MT_SYS(mmap(p + pg, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_LOCKED, -1,
		    0));
	p[0] = 42;
	p[pg] = 7;
	p[2 * pg] = 42;
	ret = madvise(p, 3 * pg, MADV_DONTNEED);
	err = errno;
	printf("MAP_LOCKED middle: madvise ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	printf("pages: %d %d %d\n", p[0], p[pg], p[2 * pg]);
	MT_CHECK(p[0] == 0 && p[pg] == 7 && p[2 * pg] == 42, "data");
	MT_SYS(munmap(p, 3 * pg));
	mt_pass();
	return 0;
}
