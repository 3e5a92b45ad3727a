/* sysfs_names: the old sysfs(2) call that lists the file system types the
 * kernel knows (stress-ng's get stressor): option 3 counts them, option 2
 * writes the name of each into a buffer, option 1 maps the name back to
 * its index. Only the name and its NUL are written: the rest of the
 * buffer keeps its canary, at record and at replay.
 */
#include "mrr_test.h"

#include <sys/syscall.h>

int main(void)
{
	char buf[256], first[256] = "";
	long n, i, idx;

	mt_init();
	n = MT_SYS(syscall(SYS_sysfs, 3));
	MT_CHECK(n > 0, "%ld types", n);
	for (i = 0; i < n; i++) {
		size_t len;

		memset(buf, 'X', sizeof(buf));
		MT_SYS(syscall(SYS_sysfs, 2, i, buf));
		len = strnlen(buf, sizeof(buf));
		MT_CHECK(len > 0 && len < sizeof(buf) - 1, "%zu", len);
		MT_CHECK(buf[len + 1] == 'X', "byte after the NUL changed");
		if (i == 0)
			snprintf(first, sizeof(first), "%s", buf);
		idx = MT_SYS(syscall(SYS_sysfs, 1, buf));
		MT_CHECK(idx == i, "%s: index %ld, listed at %ld", buf, idx, i);
	}
	MT_CHECK(syscall(SYS_sysfs, 2, n, buf) < 0 && errno == EINVAL,
		 "index past the end");
	MT_CHECK(syscall(SYS_sysfs, 1, "no-such-fs-mrr") < 0 && errno == EINVAL,
		 "an unknown name");
	printf("sysfs: %ld file system types, the first %s\n", n, first);
	mt_pass();
	return 0;
}
