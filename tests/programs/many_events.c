/* mrr-test: timeout=120 */
/* many_events: 100,000 cheap syscalls (getuid, through syscall(2) so no
 * library can cache them), all of which must return the same uid. */
#include "mrr_test.h"

#include <sys/syscall.h>

#define COUNT 100000

int main(void)
{
	long uid, first = syscall(SYS_getuid);

	mt_init();
	MT_CHECK(first >= 0, "getuid returned %ld", first);
	for (int i = 0; i < COUNT; i++) {
		uid = syscall(SYS_getuid);
		MT_CHECK(uid == first, "call %d returned %ld, first %ld", i,
			 uid, first);
	}
	printf("%d getuid calls, all %ld\n", COUNT, first);
	mt_pass();
	return 0;
}
