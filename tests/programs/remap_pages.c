/* remap_pages: remap_file_pages(2), which maps other pages of a shared
 * mapping's file at a place inside it (stress-ng's remap stressor): on a
 * shared anonymous mapping (shmem) and on a shared mapping of a real
 * file, each page then checked for the bytes of the file page it shows;
 * writes through a rearranged page reach the file page it shows. On a
 * private mapping the kernel refuses it (EINVAL). The replay runs the
 * call on its own mappings and must see the same pages.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>

#define NPAGES 4

static long pg;

static void fill(char *p)
{
	for (int i = 0; i < NPAGES; i++)
		memset(p + i * pg, 'A' + i, pg);
}

static void expect(const char *what, char *p, const char *shows)
{
	for (int i = 0; i < NPAGES; i++)
		MT_CHECK(p[i * pg] == shows[i] &&
				 p[i * pg + pg - 1] == shows[i],
			 "%s: page %d shows %c, expected %c", what, i,
			 p[i * pg], shows[i]);
	printf("%s: pages show %.*s\n", what, NPAGES, shows);
}

static void rearrange(const char *what, char *p)
{
	/* reverse the four pages, one call per page */
	for (int i = 0; i < NPAGES; i++)
		MT_SYS(remap_file_pages(p + i * pg, pg, 0, NPAGES - 1 - i, 0));
	expect(what, p, "DCBA");
	/* two pages at once: pages 1-2 show file pages 0-1 */
	MT_SYS(remap_file_pages(p + pg, 2 * pg, 0, 0, 0));
	expect(what, p, "DABA");
}

int main(void)
{
	char path[] = "/tmp/mrr-remap-XXXXXX", buf[8];
	char *p;
	int fd;

	mt_init();
	pg = sysconf(_SC_PAGESIZE);

	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0));
	fill(p);
	rearrange("shared anonymous", p);
	p[pg] = 'z'; /* file page 0, also shown by page 3 */
	MT_CHECK(p[3 * pg] == 'z', "page 3 shows %c", p[3 * pg]);
	MT_SYS(munmap(p, NPAGES * pg));

	fd = MT_SYS(mkstemp(path));
	MT_SYS(unlink(path));
	MT_SYS(ftruncate(fd, NPAGES * pg));
	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, 0));
	fill(p);
	rearrange("shared file", p);
	p[0] = 'y'; /* file page 3 */
	MT_SYS(msync(p, NPAGES * pg, MS_SYNC));
	MT_CHECK(pread(fd, buf, 1, 3 * pg) == 1 && buf[0] == 'y',
		 "file page 3 holds %c", buf[0]);
	printf("a write through a rearranged page reached the file\n");
	MT_SYS(munmap(p, NPAGES * pg));
	close(fd);

	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	MT_CHECK(remap_file_pages(p, pg, 0, 1, 0) < 0 && errno == EINVAL,
		 "remap_file_pages of a private mapping: %s", strerror(errno));
	printf("a private mapping: EINVAL\n");
	mt_pass();
	return 0;
}
