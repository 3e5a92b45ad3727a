/* huge_sparse: a 32 GiB MAP_NORESERVE anonymous region and a 16 GiB memfd
 * mapped shared, each with a few touched pages, a MADV_DONTNEED over the
 * whole anonymous region, and a pwrite into the memfd far from its start.
 * Natively this takes milliseconds: a recorder whose work grows with a
 * mapping's size rather than with its resident pages never finishes. */
/* mrr-test: timeout=120 */
#include "mrr_test.h"

#include <sys/mman.h>

#define ANON_LEN  (32UL << 30)
#define MEMFD_LEN (16UL << 30)

int main(void)
{
	static const unsigned long offs[] = {0, 1UL << 30, 20UL << 30,
					     ANON_LEN - 4096};
	const size_t n = sizeof(offs) / sizeof(offs[0]);
	char *anon, *shm, buf[8];
	size_t i;
	int mfd;

	mt_init();
	anon = MT_SYS(mmap(NULL, ANON_LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
	for (i = 0; i < n; i++)
		anon[offs[i]] = (char)(i + 1);
	MT_SYS(madvise(anon, ANON_LEN, MADV_DONTNEED));
	for (i = 0; i < n; i++)
		MT_CHECK(anon[offs[i]] == 0, "anon page %zu reads %d", i,
			 anon[offs[i]]);
	anon[offs[1]] = 7;
	printf("anonymous: %lu GiB, %zu pages dropped\n", ANON_LEN >> 30, n);

	mfd = MT_SYS(memfd_create("mrr-huge", 0));
	MT_SYS(ftruncate(mfd, (off_t)MEMFD_LEN));
	shm = MT_SYS(mmap(NULL, MEMFD_LEN, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_NORESERVE, mfd, 0));
	strcpy(shm + (3UL << 30), "far");
	MT_CHECK(pwrite(mfd, "pwr", 3, (off_t)(MEMFD_LEN - 4096)) == 3,
		 "pwrite");
	MT_CHECK(memcmp(shm + MEMFD_LEN - 4096, "pwr", 3) == 0,
		 "mapping misses pwrite");
	MT_CHECK(pread(mfd, buf, 4, (off_t)(3UL << 30)) == 4, "pread");
	MT_CHECK(strcmp(buf, "far") == 0, "pread reads '%s'", buf);
	printf("memfd: %lu GiB, read back '%s' and '%.3s'\n", MEMFD_LEN >> 30,
	       buf, shm + MEMFD_LEN - 4096);
	MT_SYS(munmap(shm, MEMFD_LEN));
	MT_SYS(munmap(anon, ANON_LEN));
	mt_pass();
	return 0;
}
