/* madv_onebyte: the kernel rounds madvise's length up to whole pages, so
 * MADV_DONTNEED of one byte drops that byte's whole page and nothing else;
 * a length ending one byte into the next page drops that page too. A length
 * of 0 succeeds and does nothing. */
#include "mrr_test.h"

#include <sys/mman.h>

#define NPAGES 4

static void fill(char *p, long pg)
{
	int i;

	for (i = 0; i < NPAGES; i++)
		memset(p + i * pg, 'a' + i, pg);
}

static void show(const char *what, char *p, long pg)
{
	int i;

	printf("%s:", what);
	for (i = 0; i < NPAGES; i++)
		printf(" %c", p[i * pg + pg - 1] ? p[i * pg + pg - 1] : '0');
	printf("\n");
}

/* Every byte of page i is its letter, or zero when dropped. */
static void expect(char *p, long pg, const char *dropped)
{
	long i, j;

	for (i = 0; i < NPAGES; i++)
		for (j = 0; j < pg; j++) {
			char want = dropped[i] == '1' ? 0 : (char)('a' + i);

			MT_CHECK(p[i * pg + j] == want,
				 "page %ld byte %ld is %d, want %d", i, j,
				 p[i * pg + j], want);
		}
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p;

	mt_init();
	p = MT_SYS(mmap(NULL, NPAGES * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

	fill(p, pg);
	MT_SYS(madvise(p, 1, MADV_DONTNEED));
	show("length 1 at page 0", p, pg);
	expect(p, pg, "1000");

	fill(p, pg);
	MT_SYS(madvise(p + pg, pg + 1, MADV_DONTNEED));
	show("length pagesize+1 at page 1", p, pg);
	expect(p, pg, "0110");

	fill(p, pg);
	MT_SYS(madvise(p + 3 * pg, 0, MADV_DONTNEED));
	show("length 0 at page 3", p, pg);
	expect(p, pg, "0000");

	MT_SYS(munmap(p, NPAGES * pg));
	mt_pass();
	return 0;
}
