/* uffd_fd: a userfaultfd that is created, asked for its API and features,
 * polled and read (nothing to read) and closed, as stress-ng's close
 * stressor does among other kinds of fds. Without UFFDIO_REGISTER (which
 * mrr refuses: tests/hardening/hostile_cmds.c) nothing happens behind the
 * program's syscalls, and the replay hands back what the kernel answered.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

int main(void)
{
	struct uffdio_api api;
	struct pollfd pfd;
	char buf[32];
	long fd;

	mt_init();
	fd = syscall(SYS_userfaultfd,
		     O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (fd < 0) {
		printf("userfaultfd: %s\n", strerror(errno));
		mt_pass();
		return 0;
	}
	memset(&api, 0xa5, sizeof(api));
	api.api = UFFD_API;
	api.features = 0;
	MT_SYS(ioctl((int)fd, UFFDIO_API, &api));
	MT_CHECK(api.api == UFFD_API, "api 0x%llx",
		 (unsigned long long)api.api);
	printf("UFFDIO_API: features 0x%llx, ioctls 0x%llx\n",
	       (unsigned long long)api.features,
	       (unsigned long long)api.ioctls);
	/* a second UFFDIO_API on the same fd is refused */
	MT_CHECK(ioctl((int)fd, UFFDIO_API, &api) < 0, "second UFFDIO_API");
	printf("second UFFDIO_API: %s\n", strerror(errno));
	pfd.fd = (int)fd;
	pfd.events = POLLIN;
	MT_CHECK(poll(&pfd, 1, 0) == 0, "poll: revents 0x%x", pfd.revents);
	MT_CHECK(read((int)fd, buf, sizeof(buf)) < 0 && errno == EAGAIN,
		 "read: %s", strerror(errno));
	printf("nothing to read: %s\n", strerror(EAGAIN));
	MT_SYS(close((int)fd));
	mt_pass();
	return 0;
}
