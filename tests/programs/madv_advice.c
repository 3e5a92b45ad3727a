/* madv_advice: every advisory madvise value once on a small private
 * anonymous region, printing each result. Which of them succeed depends on
 * the kernel and its configuration (KSM, THP, guard regions need 6.13), so
 * any result is accepted except where the kernel documents one; what is
 * checked is that advice which must not change memory leaves the data
 * intact, that an unknown value fails with EINVAL, and that removing a
 * guard region leaves zeroes where it was installed. */
#include "mrr_test.h"

#include <signal.h>
#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef MADV_GUARD_REMOVE
#define MADV_GUARD_REMOVE 103
#endif

#define NPAGES 4

static void fill(char *p, long pg)
{
	long i;

	for (i = 0; i < NPAGES * pg; i++)
		p[i] = (char)(i % 251 + 1);
}

static int intact(const char *p, long pg, int skip_page)
{
	long i;

	for (i = 0; i < NPAGES * pg; i++) {
		if (i / pg == skip_page)
			continue;
		if (p[i] != (char)(i % 251 + 1))
			return 0;
	}
	return 1;
}

static int advise(const char *name, char *p, size_t len, int advice)
{
	int ret = madvise(p, len, advice), err = errno;

	printf("%-22s ret=%d errno=%s\n", name, ret,
	       ret ? strerrorname_np(err) : "0");
	errno = err;
	return ret;
}

int main(void)
{
	static const struct {
		const char *name;
		int advice;
	} keep[] = {
		{"MADV_NORMAL", MADV_NORMAL},
		{"MADV_RANDOM", MADV_RANDOM},
		{"MADV_SEQUENTIAL", MADV_SEQUENTIAL},
		{"MADV_WILLNEED", MADV_WILLNEED},
		{"MADV_COLD", MADV_COLD},
		{"MADV_PAGEOUT", MADV_PAGEOUT},
		{"MADV_HUGEPAGE", MADV_HUGEPAGE},
		{"MADV_NOHUGEPAGE", MADV_NOHUGEPAGE},
		{"MADV_MERGEABLE", MADV_MERGEABLE},
		{"MADV_UNMERGEABLE", MADV_UNMERGEABLE},
		{"MADV_DONTDUMP", MADV_DONTDUMP},
		{"MADV_DODUMP", MADV_DODUMP},
		{"MADV_POPULATE_READ", MADV_POPULATE_READ},
		{"MADV_POPULATE_WRITE", MADV_POPULATE_WRITE},
		{"MADV_COLLAPSE", MADV_COLLAPSE},
	};
	long pg = sysconf(_SC_PAGESIZE);
	size_t i;
	char *p;
	int ret;

	mt_init();
	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	fill(p, pg);
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		advise(keep[i].name, p, NPAGES * pg, keep[i].advice);
		MT_CHECK(intact(p, pg, -1), "%s changed the data",
			 keep[i].name);
	}

	ret = advise("unknown (9999)", p, NPAGES * pg, 9999);
	MT_CHECK(ret == -1 && errno == EINVAL, "ret=%d errno=%d", ret, errno);
	MT_CHECK(intact(p, pg, -1), "unknown advice changed the data");

	/* A guard region on page 1: its data is zapped, the rest stays. */
	ret = advise("MADV_GUARD_INSTALL", p + pg, pg, MADV_GUARD_INSTALL);
	if (ret == 0) {
		MT_CHECK(intact(p, pg, 1), "a guard changed other pages");
		ret = advise("MADV_GUARD_REMOVE", p + pg, pg,
			     MADV_GUARD_REMOVE);
		MT_CHECK(ret == 0, "GUARD_REMOVE failed after GUARD_INSTALL");
		for (long j = 0; j < pg; j++)
			MT_CHECK(p[pg + j] == 0,
				 "byte %ld of the guarded page is %d", j,
				 p[pg + j]);
		printf("guarded page reads zero after removal\n");
	} else {
		MT_CHECK(errno == EINVAL, "GUARD_INSTALL errno=%d", errno);
		ret = advise("MADV_GUARD_REMOVE", p + pg, pg,
			     MADV_GUARD_REMOVE);
		MT_CHECK(ret == -1 && errno == EINVAL,
			 "GUARD_REMOVE without GUARD_INSTALL support");
		MT_CHECK(intact(p, pg, -1), "a failed guard changed data");
	}
	MT_CHECK(intact(p, pg, 1), "pages around the guard changed");
	MT_SYS(munmap(p, NPAGES * pg));
	mt_pass();
	return 0;
}
