/* madv_unaligned: madvise with a start address that is not page aligned
 * fails with EINVAL before doing anything, for every advice tried; the
 * pages keep their data. A page-aligned start with an unaligned length is
 * fine (see madv_onebyte). */
#include "mrr_test.h"

#include <sys/mman.h>

int main(void)
{
	static const struct {
		const char *name;
		int advice;
	} advices[] = {
		{"MADV_DONTNEED", MADV_DONTNEED},
		{"MADV_FREE", MADV_FREE},
		{"MADV_REMOVE", MADV_REMOVE},
		{"MADV_WILLNEED", MADV_WILLNEED},
		{"MADV_WIPEONFORK", MADV_WIPEONFORK},
	};
	long pg = sysconf(_SC_PAGESIZE);
	size_t i;
	char *p;
	int ret, err;

	mt_init();
	p = MT_SYS(mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 42;
	p[pg] = 43;
	for (i = 0; i < sizeof(advices) / sizeof(advices[0]); i++) {
		ret = madvise(p + 1, pg, advices[i].advice);
		err = errno;
		printf("%s at start+1: ret=%d errno=%s\n", advices[i].name, ret,
		       ret ? strerrorname_np(err) : "0");
		MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret,
			 err);
		MT_CHECK(p[0] == 42 && p[pg] == 43, "data changed: %d %d", p[0],
			 p[pg]);
	}
	/* Unaligned by a full page minus one, and a length of 0. */
	ret = madvise(p + pg - 1, 2, MADV_DONTNEED);
	err = errno;
	printf("MADV_DONTNEED at start+pagesize-1: ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	ret = madvise(p + 1, 0, MADV_DONTNEED);
	err = errno;
	printf("MADV_DONTNEED at start+1, length 0: ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	printf("pages: %d %d\n", p[0], p[pg]);
	MT_CHECK(p[0] == 42 && p[pg] == 43, "data changed");
	MT_SYS(munmap(p, 2 * pg));
	mt_pass();
	return 0;
}
