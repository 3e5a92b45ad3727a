/* madv_free: MADV_FREE lets the kernel discard private anonymous pages
 * lazily: until memory runs short they keep their data, afterwards they
 * read as zeroes. Either outcome is correct, page by page (never a mix
 * inside one page), so this program accepts both and prints which one it
 * saw. A page written after MADV_FREE is no longer freeable and keeps the
 * new data. MADV_FREE on a file mapping fails with EINVAL. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>

#define NPAGES 4

/* "old", "zero", or fails on a page that is neither. */
static const char *page_state(const char *page, long pg, char old)
{
	long j;

	if (page[0] != old && page[0] != 0)
		goto bad;
	for (j = 1; j < pg; j++)
		if (page[j] != page[0])
			goto bad;
	return page[0] ? "old data" : "zero";
bad:
	MT_CHECK(0, "page holds neither its old data nor zeroes (byte %d)",
		 page[0]);
	return NULL;
}

static void show(const char *what, char *p, long pg)
{
	int i;

	for (i = 0; i < NPAGES; i++)
		printf("%s: page %d reads %s\n", what, i,
		       page_state(p + i * pg, pg, (char)('a' + i)));
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[64];
	char *p, *f;
	int i, fd, ret, err;

	mt_init();
	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	for (i = 0; i < NPAGES; i++)
		memset(p + i * pg, 'a' + i, pg);
	MT_SYS(madvise(p, NPAGES * pg, MADV_FREE));
	printf("madvise(MADV_FREE): ret=0\n");
	show("after MADV_FREE", p, pg);

	/* Writing cancels the free for that page. */
	memset(p + pg, 'b', pg);
	MT_SYS(madvise(p, NPAGES * pg, MADV_FREE));
	memset(p + 2 * pg, 'c', pg);
	/* Ask for reclaim, which may discard the clean freed pages. */
	ret = madvise(p, NPAGES * pg, MADV_PAGEOUT);
	err = errno;
	printf("madvise(MADV_PAGEOUT): ret=%d errno=%s\n", ret,
	       ret ? strerrorname_np(err) : "0");
	show("after a second MADV_FREE and a write to page 2", p, pg);
	MT_CHECK(p[2 * pg] == 'c', "page written after MADV_FREE lost it");

	/* Not for file mappings. */
	snprintf(path, sizeof(path), "/tmp/mrr-madv_free-%d", (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	MT_SYS(ftruncate(fd, pg));
	f = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	f[0] = 1;
	ret = madvise(f, pg, MADV_FREE);
	err = errno;
	printf("madvise(MADV_FREE) on a private file mapping: ret=%d "
	       "errno=%s\n",
	       ret, ret ? strerrorname_np(err) : "0");
	MT_CHECK(ret == -1 && err == EINVAL, "ret=%d errno=%d", ret, err);
	MT_CHECK(f[0] == 1, "file mapping changed");
	MT_SYS(munmap(f, pg));
	MT_SYS(close(fd));
	MT_SYS(munmap(p, NPAGES * pg));
	mt_pass();
	return 0;
}
