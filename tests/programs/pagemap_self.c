/* pagemap_self: reads its own /proc/self/pagemap, one 64-bit entry per
 * page (bit 63 present, bit 62 swapped), for four pages of a fresh private
 * anonymous mapping: written, only read (mapped to the shared zero page,
 * so present too), never touched, and written then dropped with
 * MADV_DONTNEED. Also checks that the file refuses reads that are not
 * whole, aligned entries. PFNs are never printed: they vary. */
#include "mrr_test.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)

static uint64_t entry(int fd, const char *addr, long pg)
{
	uint64_t e = 0;
	ssize_t n;

	n = MT_SYS(pread(fd, &e, sizeof(e),
			 (off_t)((uintptr_t)addr / pg * sizeof(e))));
	MT_CHECK(n == sizeof(e), "short pagemap read: %zd", n);
	return e;
}

int main(void)
{
	static const char *const what[] = {"written", "read only", "untouched",
					   "dropped"};
	static const int want_present[] = {1, 1, 0, 0};
	long pg = sysconf(_SC_PAGESIZE);
	volatile char sink;
	uint64_t e, two[2];
	ssize_t n;
	char *p;
	int fd, i;

	mt_init();
	fd = MT_SYS(open("/proc/self/pagemap", O_RDONLY));
	p = MT_SYS(mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	MT_SYS(madvise(p, 4 * pg, MADV_NOHUGEPAGE));
	p[0] = 1;
	sink = p[pg];
	(void)sink;
	p[3 * pg] = 1;
	MT_SYS(madvise(p + 3 * pg, pg, MADV_DONTNEED));

	for (i = 0; i < 4; i++) {
		e = entry(fd, p + i * pg, pg);
		printf("page %d (%s): present=%d swapped=%d\n", i, what[i],
		       !!(e & PM_PRESENT), !!(e & PM_SWAPPED));
		MT_CHECK(!!(e & PM_PRESENT) == want_present[i],
			 "page %d entry %#llx", i, (unsigned long long)e);
		MT_CHECK(!(e & PM_SWAPPED), "page %d swapped", i);
	}

	/* Two entries in one read. */
	n = MT_SYS(pread(fd, two, sizeof(two),
			 (off_t)((uintptr_t)p / pg * sizeof(e))));
	MT_CHECK(n == sizeof(two), "read %zd", n);
	MT_CHECK((two[0] & PM_PRESENT) && (two[1] & PM_PRESENT),
		 "two-entry read disagrees");
	printf("two-entry read: present=%d,%d\n", !!(two[0] & PM_PRESENT),
	       !!(two[1] & PM_PRESENT));

	n = pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / pg * 8 + 1));
	printf("unaligned offset: ret=%zd errno=%s\n", n,
	       n < 0 ? strerrorname_np(errno) : "0");
	MT_CHECK(n == -1 && errno == EINVAL, "unaligned read gave %zd", n);
	n = pread(fd, &e, 4, (off_t)((uintptr_t)p / pg * 8));
	printf("half an entry: ret=%zd errno=%s\n", n,
	       n < 0 ? strerrorname_np(errno) : "0");
	MT_CHECK(n == -1 && errno == EINVAL, "short read gave %zd", n);

	MT_SYS(munmap(p, 4 * pg));
	MT_SYS(close(fd));
	mt_pass();
	return 0;
}
