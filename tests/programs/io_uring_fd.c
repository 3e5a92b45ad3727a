/* io_uring_fd: an io_uring instance made and closed without being used,
 * as LTP's tst_fd makes one fd of every kind: io_uring_setup's result and
 * the struct io_uring_params it fills are recorded. (Entering the ring
 * and mapping it are refused: tests/hardening/hostile_cmds.c.) Where
 * io_uring is disabled the failure is recorded the same way.
 */
#include "mrr_test.h"

#include <linux/io_uring.h>
#include <sys/syscall.h>

int main(void)
{
	struct io_uring_params p;
	long fd;

	mt_init();
	memset(&p, 0, sizeof(p));
	fd = syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0) {
		printf("io_uring_setup: %s\n", strerror(errno));
		mt_pass();
		return 0;
	}
	MT_CHECK(p.sq_entries == 4 && p.cq_entries == 8, "sq %u, cq %u",
		 p.sq_entries, p.cq_entries);
	printf("io_uring_setup: sq %u, cq %u entries, features 0x%x, sq "
	       "array at %u\n",
	       p.sq_entries, p.cq_entries, p.features, p.sq_off.array);
	MT_SYS(close((int)fd));
	memset(&p, 0, sizeof(p));
	MT_CHECK(syscall(SYS_io_uring_setup, 0, &p) < 0 && errno == EINVAL,
		 "no entries: %s", strerror(errno));
	printf("no entries: %s\n", strerror(errno));
	mt_pass();
	return 0;
}
