/* static_hello: a statically linked program (no interpreter, no shared
 * libraries): writes with write(2) and stdio, reads the time and its pid. */
#include "mrr_test.h"

#include <time.h>

int main(void)
{
	static const char msg[] = "hello from a static binary\n";
	struct timespec ts;

	mt_init();
	MT_CHECK(write(STDOUT_FILENO, msg, sizeof(msg) - 1) == sizeof(msg) - 1,
		 "write failed");
	MT_SYS(clock_gettime(CLOCK_MONOTONIC, &ts));
	MT_CHECK(ts.tv_sec > 0 || ts.tv_nsec > 0, "monotonic clock at zero");
	MT_CHECK(getpid() > 1, "pid %d", (int)getpid());
	fprintf(stderr, "static stderr line\n");
	printf("printf works, uid %d\n", (int)getuid());
	mt_pass();
	return 0;
}
