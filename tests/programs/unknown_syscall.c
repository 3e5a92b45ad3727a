/* unknown_syscall: probes the kernel with syscall numbers it does not
 * implement, as programs do to find out what the kernel offers: -1, a
 * number in the unused gap of the x86-64 table, one just past the table and
 * a large one. The kernel answers each with ENOSYS, so must a recording and
 * its replay, rather than stopping as "unsupported".
 */
#include "mrr_test.h"

#include <sys/syscall.h>

static void probe(long nr)
{
	long ret;

	errno = 0;
	ret = syscall(nr, 1, 2, 3, 4, 5, 6);
	MT_CHECK(ret == -1 && errno == ENOSYS,
		 "syscall(%ld) returned %ld, errno %d", nr, ret, errno);
	printf("syscall(%ld): ENOSYS\n", nr);
}

int main(void)
{
	mt_init();
	probe(-1);
	probe(400);  /* in the gap between 334 and 424 */
	probe(1000); /* past every table */
	probe(0x3fffffff);
	/* an ordinary call still works afterwards */
	MT_CHECK(syscall(SYS_getppid) > 0, "getppid: %s", strerror(errno));
	mt_pass();
	return 0;
}
