/* memfd_sealed_map: shared read-only mappings that can never become
 * writable: of a memfd sealed against writes (F_SEAL_WRITE, then
 * F_SEAL_FUTURE_WRITE) and of a file opened read-only. mprotect to
 * PROT_WRITE fails with EACCES on them, and a replay must fail it alike
 * (it mapped its writable copy, and the mprotect succeeded: LTP
 * memfd_create01 diverged). A mapping of a writable fd of the same file
 * can still be made writable. */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>

static void expect_eacces(char *p, const char *what)
{
	errno = 0;
	MT_CHECK(mprotect(p, 8192, PROT_READ | PROT_WRITE) == -1 &&
			 errno == EACCES,
		 "%s: mprotect to writable gave %s", what, strerror(errno));
	printf("%s: mprotect to writable refused\n", what);
}

int main(void)
{
	static const int seals[] = {F_SEAL_WRITE, F_SEAL_FUTURE_WRITE};
	char *p, *q;
	int fd, ro;

	mt_init();
	for (int i = 0; i < 2; i++) {
		fd = MT_SYS(memfd_create("mrr-sealed", MFD_ALLOW_SEALING));
		MT_SYS(ftruncate(fd, 8192));
		MT_CHECK(pwrite(fd, "sealed", 6, 0) == 6, "pwrite");
		MT_SYS(fcntl(fd, F_ADD_SEALS, seals[i]));
		p = MT_SYS(mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0));
		MT_CHECK(memcmp(p, "sealed", 6) == 0, "reads '%.6s'", p);
		expect_eacces(p, i ? "future-write seal" : "write seal");
		MT_SYS(munmap(p, 8192));
		MT_SYS(close(fd));
	}

	fd = MT_SYS(
		open("memfd_sealed_map.dat", O_RDWR | O_CREAT | O_TRUNC, 0600));
	MT_SYS(ftruncate(fd, 8192));
	ro = MT_SYS(open("memfd_sealed_map.dat", O_RDONLY));
	MT_SYS(unlink("memfd_sealed_map.dat"));
	p = MT_SYS(mmap(NULL, 8192, PROT_READ, MAP_SHARED, ro, 0));
	expect_eacces(p, "read-only fd");
	q = MT_SYS(mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0));
	MT_SYS(mprotect(q, 8192, PROT_READ | PROT_WRITE));
	strcpy(q, "through the writable view");
	MT_CHECK(strcmp(p, q) == 0, "the read-only view reads '%s'", p);
	printf("read-write fd: '%s'\n", p);
	mt_pass();
	return 0;
}
