/* mremap_merged: mremap of a range that was mapped by several calls which
 * the kernel merged into one VMA: adjacent anonymous mappings, two
 * mprotects that split a VMA and then joined it back, adjacent mappings of
 * one file made executable and not (code and data of one file), and of one
 * file that changed between the two mmaps. Grown, moved and shrunk. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>

/* Maps pages [0, 2) and [2, 4) of fd next to each other, the first with
 * prot1, then makes both PROT_READ and grows them as one with mremap. */
static char *map_halves(int fd, long pg, int prot1, int flags, int change)
{
	char *a, *b, *r;

	a = MT_SYS(mmap(NULL, 4 * pg, prot1, flags, fd, 0));
	if (change)
		MT_CHECK(pwrite(fd, "C", 1, 3 * pg) == 1, "pwrite");
	b = MT_SYS(mmap(a + 2 * pg, 2 * pg, PROT_READ, flags | MAP_FIXED, fd,
			2 * pg));
	MT_CHECK(b == a + 2 * pg, "second half at %p", b);
	MT_SYS(mprotect(a, 2 * pg, PROT_READ));
	r = MT_SYS(mremap(a, 4 * pg, 6 * pg, MREMAP_MAYMOVE));
	return r;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *a, *b, *m, *r;
	int i;

	mt_init();
	/* reserve, then map two halves one next to the other */
	a = MT_SYS(mmap(NULL, 16 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0));
	MT_SYS(munmap(a, 16 * pg));
	m = MT_SYS(mmap(a, 2 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	b = MT_SYS(mmap(a + 2 * pg, 2 * pg, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
	MT_CHECK(m == a && b == a + 2 * pg, "placed at %p %p", m, b);
	for (i = 0; i < 4; i++)
		a[i * pg] = (char)('0' + i);
	/* one VMA now: mremap of all four pages at once */
	r = MT_SYS(mremap(a, 4 * pg, 8 * pg, MREMAP_MAYMOVE));
	for (i = 0; i < 4; i++)
		MT_CHECK(r[i * pg] == '0' + i, "page %d after grow: %d", i,
			 r[i * pg]);
	printf("merged mappings grown to 8 pages: %c%c%c%c\n", r[0], r[pg],
	       r[2 * pg], r[3 * pg]);

	/* split by mprotect, joined back by the second one */
	MT_SYS(mprotect(r + 2 * pg, 2 * pg, PROT_READ));
	MT_SYS(mprotect(r + 2 * pg, 2 * pg, PROT_READ | PROT_WRITE));
	r[7 * pg] = '7';
	m = MT_SYS(mremap(r, 8 * pg, 8 * pg, MREMAP_MAYMOVE | MREMAP_FIXED,
			  a + 64 * pg));
	MT_CHECK(m[3 * pg] == '3' && m[7 * pg] == '7', "after move");
	m = MT_SYS(mremap(m, 8 * pg, 3 * pg, 0));
	MT_CHECK(m[2 * pg] == '2', "after shrink");
	printf("moved and shrunk: %c%c%c\n", m[0], m[pg], m[2 * pg]);
	MT_SYS(munmap(m, 3 * pg));

	{
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/tmp/mrr-mremap_merged-%d",
			 (int)getpid());
		fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0700));
		MT_SYS(unlink(path));
		MT_SYS(ftruncate(fd, 6 * pg));
		MT_CHECK(pwrite(fd, "abcd", 4, 0) == 4, "pwrite");
		r = map_halves(fd, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, 0);
		MT_CHECK(r[0] == 'a', "code+data file mapping reads %d", r[0]);
		printf("code and data of one file, merged and grown\n");
		MT_SYS(munmap(r, 6 * pg));
		r = map_halves(fd, pg, PROT_READ, MAP_SHARED, 1);
		MT_CHECK(r[3 * pg] == 'C', "changed file reads %d", r[3 * pg]);
		printf("a file changed between two mappings, merged: %c\n",
		       r[3 * pg]);
		MT_SYS(munmap(r, 6 * pg));
		MT_SYS(close(fd));
	}
	mt_pass();
	return 0;
}
