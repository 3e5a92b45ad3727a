/* madv_private_file: MADV_DONTNEED on a MAP_PRIVATE mapping of a file
 * throws away the private copies of written pages; reading them again
 * returns the file's bytes, not zeroes (rr issue 3667 discussion: a replay
 * that maps anonymous memory in place of the file would read zeroes). Pages
 * dropped without having been written also read the file again, including
 * a change made to the file through write(2) in between. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>

#define NPAGES 3

static unsigned char byte_at(size_t i)
{
	return (unsigned char)('A' + i % 26);
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t size = NPAGES * pg, i;
	unsigned char *model, *p;
	char path[64];
	ssize_t n;
	int fd;

	mt_init();
	model = malloc(size);
	MT_CHECK(model, "out of memory");
	for (i = 0; i < size; i++)
		model[i] = byte_at(i);
	snprintf(path, sizeof(path), "/tmp/mrr-madv_private_file-%d",
		 (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	n = MT_SYS(write(fd, model, size));
	MT_CHECK(n == (ssize_t)size, "write returned %zd", n);

	p = MT_SYS(
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	MT_CHECK(memcmp(p, model, size) == 0, "mapping differs from file");
	memset(p + pg, 'z', pg); /* private copy of page 1 */
	p[2 * pg + 10] = '!';	 /* and of page 2 */
	printf("before: page0 %.4s page1 %.4s page2 %.4s\n", p, p + pg,
	       p + 2 * pg + 8);

	MT_SYS(madvise(p, size, MADV_DONTNEED));
	printf("after MADV_DONTNEED: page0 %.4s page1 %.4s page2 %.4s\n", p,
	       p + pg, p + 2 * pg + 8);
	MT_CHECK(memcmp(p, model, size) == 0,
		 "private copies survived MADV_DONTNEED");

	/* The mapping now shares the page cache: a write(2) shows through. */
	n = MT_SYS(pwrite(fd, "FILE", 4, pg));
	MT_CHECK(n == 4, "pwrite returned %zd", n);
	memcpy(model + pg, "FILE", 4);
	printf("after pwrite: page1 %.4s\n", p + pg);
	MT_CHECK(memcmp(p, model, size) == 0, "pwrite not visible");

	/* A new private copy hides later file changes again. */
	p[pg] = 'x';
	n = MT_SYS(pwrite(fd, "NEW", 3, pg + 1));
	MT_CHECK(n == 3, "pwrite returned %zd", n);
	MT_CHECK(memcmp(p + pg, "xILE", 4) == 0, "copy reads %.4s", p + pg);
	MT_SYS(madvise(p + pg, pg, MADV_DONTNEED));
	memcpy(model + pg + 1, "NEW", 3);
	printf("after second drop: page1 %.4s\n", p + pg);
	MT_CHECK(memcmp(p, model, size) == 0, "page 1 differs from file");

	MT_SYS(munmap(p, size));
	MT_SYS(close(fd));
	free(model);
	mt_pass();
	return 0;
}
