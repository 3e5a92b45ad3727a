/* mmap_file: MAP_SHARED and MAP_PRIVATE mappings of a three-page temp file.
 * Checks that stores through the shared mapping reach the file after msync,
 * that write(2) to the file shows through both mappings where the private
 * one has not copied the page, that stores through the private mapping never
 * reach the file, and the file's final bytes after unmapping. */
#include "mrr_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define NPAGES 3

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t size = NPAGES * pg;
	unsigned char *model, *rd, *shr, *prv, *off1;
	char path[64];
	ssize_t n;
	int fd;

	mt_init();
	model = malloc(size);
	rd = malloc(size);
	MT_CHECK(model && rd, "out of memory");
	for (size_t i = 0; i < size; i++)
		model[i] = (unsigned char)(i % 251);
	snprintf(path, sizeof(path), "/tmp/mrr-mmap_file-%d", (int)getpid());
	fd = MT_SYS(open(path, O_CREAT | O_EXCL | O_RDWR, 0600));
	MT_SYS(unlink(path));
	n = MT_SYS(write(fd, model, size));
	MT_CHECK(n == (ssize_t)size, "write returned %zd", n);

	shr = MT_SYS(
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	prv = MT_SYS(
		mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0));
	off1 = MT_SYS(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, pg));
	MT_CHECK(memcmp(shr, model, size) == 0, "shared mapping differs");
	MT_CHECK(memcmp(prv, model, size) == 0, "private mapping differs");
	MT_CHECK(memcmp(off1, model + pg, pg) == 0, "offset mapping differs");
	printf("both mappings hold the file's %zu bytes\n", size);

	/* Shared store: visible in the file after msync, and in the private
	 * mapping's pages it has not copied yet. */
	memcpy(shr + 100, "shared-store", 12);
	memcpy(model + 100, "shared-store", 12);
	MT_SYS(msync(shr, size, MS_SYNC));
	n = MT_SYS(pread(fd, rd, size, 0));
	MT_CHECK(n == (ssize_t)size && memcmp(rd, model, size) == 0,
		 "file misses the shared store");
	MT_CHECK(memcmp(prv + 100, "shared-store", 12) == 0,
		 "private mapping misses an uncopied page's update");
	printf("shared store reached the file: %.12s\n", rd + 100);

	/* Private store on page 2: the file and the shared mapping keep the
	 * old bytes; the private mapping keeps its own. */
	memcpy(prv + 2 * pg + 5, "private-store", 13);
	n = MT_SYS(pread(fd, rd, size, 0));
	MT_CHECK(n == (ssize_t)size && memcmp(rd, model, size) == 0,
		 "private store reached the file");
	MT_CHECK(memcmp(shr + 2 * pg + 5, model + 2 * pg + 5, 13) == 0,
		 "private store reached the shared mapping");
	printf("private store stayed private: %.13s\n", prv + 2 * pg + 5);

	/* write(2) to page 1 shows through the shared mappings and through
	 * the private mapping's page 1, which was never copied. */
	n = MT_SYS(pwrite(fd, "via-pwrite", 10, pg + 50));
	MT_CHECK(n == 10, "pwrite returned %zd", n);
	memcpy(model + pg + 50, "via-pwrite", 10);
	MT_CHECK(memcmp(shr + pg + 50, "via-pwrite", 10) == 0,
		 "shared mapping misses pwrite");
	MT_CHECK(memcmp(off1 + 50, "via-pwrite", 10) == 0,
		 "offset mapping misses pwrite");
	MT_CHECK(memcmp(prv + pg + 50, "via-pwrite", 10) == 0,
		 "private mapping misses pwrite on an uncopied page");
	MT_CHECK(memcmp(prv + 2 * pg + 5, "private-store", 13) == 0,
		 "private copy lost");
	printf("pwrite showed through all mappings: %.10s\n", shr + pg + 50);

	MT_SYS(munmap(off1, pg));
	MT_SYS(munmap(prv, size));
	MT_SYS(munmap(shr, size));
	n = MT_SYS(pread(fd, rd, size, 0));
	MT_CHECK(n == (ssize_t)size && memcmp(rd, model, size) == 0,
		 "final file content differs");
	unsigned sum = 0;
	for (size_t i = 0; i < size; i++)
		sum = sum * 31 + rd[i];
	printf("final file checksum %08x\n", sum);
	MT_SYS(close(fd));
	free(model);
	free(rd);
	mt_pass();
	return 0;
}
