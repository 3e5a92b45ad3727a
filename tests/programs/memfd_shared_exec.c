/* memfd_shared_exec: a memfd mapped shared twice, one view writable and one
 * readable and executable; a function copied in through the writable view
 * runs from the executable one. Replayed as nobody too, where the stored
 * copy of the memfd (mode r-x, like the memfd) must not be opened for
 * writing. */
#include "mrr_test.h"

#include <sys/mman.h>

int main(void)
{
	/* mov eax, 42; ret */
	static const unsigned char code[] = {0xb8, 0x2a, 0, 0, 0, 0xc3};
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *rw, *rx;
	int (*fn)(void);
	int fd;

	mt_init();
	fd = MT_SYS(memfd_create("mrr-exec", 0));
	MT_SYS(ftruncate(fd, pg));
	MT_CHECK(pwrite(fd, "data", 4, 64) == 4, "pwrite");
	rx = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0));
	rw = MT_SYS(mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
	MT_CHECK(memcmp(rx + 64, "data", 4) == 0, "exec view reads data");
	memcpy(rw, code, sizeof(code));
	__builtin___clear_cache((char *)rx, (char *)rx + sizeof(code));
	fn = (int (*)(void))(void *)rx;
	MT_CHECK(fn() == 42, "code returned %d", fn());
	printf("code written through one view ran from the other: %d\n", fn());
	MT_SYS(munmap(rw, pg));
	MT_SYS(munmap(rx, pg));
	MT_SYS(close(fd));
	mt_pass();
	return 0;
}
