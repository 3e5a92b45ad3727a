/* madv_sparse: a 1 GiB MAP_NORESERVE anonymous range with a few touched
 * pages and a locked page at 256 MiB. MADV_DONTNEED over the whole range
 * zaps the touched pages before the lock, stops at the locked page with
 * EINVAL, and leaves the pages after it alone. A recorder has to find the
 * few dropped pages in a huge range cheaply. */
#include "mrr_test.h"

#include <sys/mman.h>

#define LEN (1UL << 30)

int main(void)
{
	static const struct {
		const char *name;
		unsigned long off;
		char val;
		int dropped;
	} pages[] = {
		{"page at 0", 0, 1, 1},
		{"page at 100 MiB", 100UL << 20, 2, 1},
		{"locked page at 256 MiB", 256UL << 20, 3, 0},
		{"page at 512 MiB", 512UL << 20, 4, 0},
		{"last page", LEN - 4096, 5, 0},
	};
	const size_t n = sizeof(pages) / sizeof(pages[0]);
	long pg = sysconf(_SC_PAGESIZE);
	char *p;
	size_t i;
	int ret, err;

	mt_init();
	MT_CHECK(pg == 4096, "page size %ld", pg);
	p = MT_SYS(mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
	/* Base pages only: a huge page would make the touched set larger
	 * but must not change the outcome. */
	MT_SYS(madvise(p, LEN, MADV_NOHUGEPAGE));
	for (i = 0; i < n; i++)
		p[pages[i].off] = pages[i].val;
	MT_SYS(mlock(p + (256UL << 20), pg));

	ret = madvise(p, LEN, MADV_DONTNEED);
	err = errno;
	printf("madvise(MADV_DONTNEED) over 1 GiB: ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	for (i = 0; i < n; i++) {
		char v = p[pages[i].off];

		printf("%s: %s (%d)\n", pages[i].name,
		       v == pages[i].val ? "kept" : "dropped", v);
		MT_CHECK(v == (pages[i].dropped ? 0 : pages[i].val),
			 "%s reads %d", pages[i].name, v);
	}
	MT_SYS(munlock(p + (256UL << 20), pg));
	MT_SYS(munmap(p, LEN));
	mt_pass();
	return 0;
}
