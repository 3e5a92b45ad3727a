/* memfd_twins: memfds that hold the same bytes when mapped (a trace stores
 * them under one content name) are still separate files. One of them is
 * shrunk, written through its mapping and punched; the others must keep
 * their size and their own bytes. A replay that backs all of them with one
 * copy gets SIGBUS in the twin that was not shrunk, or sees one file's
 * stores in the other (stress-ng memfd: SIGBUS at replay). Also a shared
 * and a private mapping of one sparse memfd of 1 GiB, resized with
 * ftruncate and fallocate while mapped. */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>

#define TWIN_LEN (1UL << 20)
#define NTWINS	 4

int main(void)
{
	char *map[NTWINS], *big, *priv;
	int fd[NTWINS], bfd, i;

	mt_init();
	for (i = 0; i < NTWINS; i++) {
		fd[i] = MT_SYS(memfd_create("mrr-twin", 0));
		MT_SYS(ftruncate(fd[i], (off_t)TWIN_LEN));
		map[i] = MT_SYS(mmap(NULL, TWIN_LEN, PROT_READ | PROT_WRITE,
				     MAP_SHARED, fd[i], 0));
	}
	/* twin 0 shrinks to two pages, its mapping past them now faults */
	MT_SYS(ftruncate(fd[0], 8192));
	strcpy(map[0], "zero");
	/* twin 1 keeps its size: its last page must still be there */
	strcpy(map[1] + TWIN_LEN - 4096, "one, last page");
	/* twin 2 gets a hole punched, twin 3 grows */
	strcpy(map[2] + 65536, "two");
	MT_SYS(fallocate(fd[2], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			 4096));
	MT_SYS(fallocate(fd[3], 0, 0, (off_t)(2 * TWIN_LEN)));
	strcpy(map[3] + 4096, "three");
	MT_CHECK(strcmp(map[0], "zero") == 0, "twin 0 reads '%s'", map[0]);
	MT_CHECK(strcmp(map[1] + TWIN_LEN - 4096, "one, last page") == 0,
		 "twin 1 reads '%s'", map[1] + TWIN_LEN - 4096);
	MT_CHECK(map[1][0] == 0 && map[2][0] == 0 && map[3][0] == 0,
		 "a twin sees twin 0's store");
	MT_CHECK(map[0][4096] == 0 && map[2][4096] == 0,
		 "a twin sees twin 3's store");
	MT_CHECK(strcmp(map[2] + 65536, "two") == 0, "twin 2 reads '%s'",
		 map[2] + 65536);
	/* a fresh twin of the zero content, after the others changed */
	MT_SYS(munmap(map[1], TWIN_LEN));
	map[1] = MT_SYS(mmap(NULL, TWIN_LEN, PROT_READ, MAP_SHARED, fd[1], 0));
	MT_CHECK(strcmp(map[1] + TWIN_LEN - 4096, "one, last page") == 0,
		 "twin 1 remapped reads '%s'", map[1] + TWIN_LEN - 4096);
	printf("twins: %d memfds of %lu KiB kept apart\n", NTWINS,
	       TWIN_LEN >> 10);

	bfd = MT_SYS(memfd_create("mrr-big", 0));
	MT_SYS(ftruncate(bfd, 1L << 30));
	big = MT_SYS(mmap(NULL, 1UL << 30, PROT_READ | PROT_WRITE, MAP_SHARED,
			  bfd, 0));
	strcpy(big + (700UL << 20), "deep");
	priv = MT_SYS(mmap(NULL, 1UL << 30, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			   bfd, 0));
	MT_CHECK(strcmp(priv + (700UL << 20), "deep") == 0,
		 "private view reads '%s'", priv + (700UL << 20));
	strcpy(priv + (800UL << 20), "mine");
	MT_SYS(ftruncate(bfd, 2L << 30));
	big = MT_SYS(mremap(big, 1UL << 30, 2UL << 30, MREMAP_MAYMOVE));
	strcpy(big + (1536UL << 20), "grown");
	MT_SYS(fallocate(bfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 700L << 20, 4096));
	MT_CHECK(big[700UL << 20] == 0 && priv[700UL << 20] == 0,
		 "the punched page still reads %d", big[700UL << 20]);
	MT_CHECK(big[800UL << 20] == 0, "the private store reached the file");
	printf("big: '%s' '%s'\n", priv + (800UL << 20), big + (1536UL << 20));
	mt_pass();
	return 0;
}
