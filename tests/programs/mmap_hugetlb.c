/* mmap_hugetlb: an anonymous MAP_HUGETLB mapping that the replay's machine
 * cannot give (LTP futex_wake04). As root, the program reserves one more
 * huge page through /proc/sys/vm/nr_hugepages (a write the replay does not
 * make; a lock serializes the tests that run at once), maps a shared anonymous
 * huge page, writes and reads it, unmaps it and gives the reservation back. The
 * replay must give it the mapping at the recorded address all the same. Without
 * the reservation (not root, no memory) it says so and passes. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>

#define HUGE (2ul << 20)

static long read_pages(void)
{
	char buf[32] = {0};
	int fd = open("/proc/sys/vm/nr_hugepages", O_RDONLY);
	long n = -1;

	if (fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0)
		n = strtol(buf, NULL, 10);
	if (fd >= 0)
		close(fd);
	return n;
}

static int write_pages(long n)
{
	char buf[32];
	int fd = open("/proc/sys/vm/nr_hugepages", O_WRONLY);
	int len = snprintf(buf, sizeof(buf), "%ld\n", n), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, (size_t)len) == len;
	close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	unsigned char *p;
	long before = -1;
	size_t i;
	int lock;

	mt_init();
	lock = open("/tmp/mrr-test-hugetlb.lock", O_RDWR | O_CREAT | O_CLOEXEC,
		    0600);
	if (lock >= 0 && flock(lock, LOCK_EX) == 0)
		before = read_pages();
	if (before < 0 || write_pages(before + 1) < 0) {
		printf("cannot reserve a huge page: nothing to test\n");
		mt_pass();
		return 0;
	}
	p = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED) {
		write_pages(before);
		printf("no huge page to map: nothing to test\n");
		mt_pass();
		return 0;
	}
	MT_CHECK(((unsigned long)p & (HUGE - 1)) == 0, "huge page at %p", p);
	for (i = 0; i < HUGE; i += 4096)
		MT_CHECK(p[i] == 0, "byte %zu is %d, not 0", i, p[i]);
	for (i = 0; i < HUGE; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	for (i = 0; i < HUGE; i += 4096)
		MT_CHECK(p[i] == (unsigned char)(i >> 12), "byte %zu", i);
	MT_SYS(munmap(p, HUGE));
	MT_SYS(write_pages(before));
	printf("mapped, wrote and unmapped a huge page\n");
	mt_pass();
	return 0;
}
