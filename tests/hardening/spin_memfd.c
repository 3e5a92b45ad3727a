/* spin_memfd: maps a 1 TiB memfd holding one written page, again and
 * again, until killed. Natively each round takes microseconds; a recorder
 * that copies or hashes a mapped file whole is kept busy for minutes by the
 * first mmap, and must still answer SIGINT and SIGTERM at once. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define LEN (1ULL << 40)

int main(void)
{
	unsigned long rounds = 0;
	int fd = memfd_create("mrr-spin", 0);

	if (fd < 0 || ftruncate(fd, (off_t)LEN) < 0 ||
	    pwrite(fd, "x", 1, (off_t)(LEN / 2)) != 1) {
		perror("spin_memfd: memfd");
		return 1;
	}
	printf("spin_memfd: mapping a %llu GiB memfd until killed\n",
	       LEN >> 30);
	fflush(stdout);
	for (;;) {
		char *p = mmap(NULL, LEN, PROT_READ, MAP_SHARED | MAP_NORESERVE,
			       fd, 0);

		if (p == MAP_FAILED) {
			perror("spin_memfd: mmap");
			return 1;
		}
		if (p[LEN / 2] != 'x') {
			fprintf(stderr, "spin_memfd: round %lu reads %d\n",
				rounds, p[LEN / 2]);
			return 1;
		}
		munmap(p, LEN);
		rounds++;
	}
}
