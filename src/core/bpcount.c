/* perf_event_open(2) breakpoint counters and CPU-time slices. The overflow
 * signal goes to one thread (F_SETOWN_EX, F_OWNER_TID) as BPCOUNT_SIGNAL
 * (F_SETSIG), so that its siginfo carries the fd (si_fd) and the band
 * code (si_code POLL_IN), which tell it from a signal of the program. */
#define _GNU_SOURCE
#include "core/bpcount.h"
#include "core/owntrap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *a, pid_t tid, bool signal)
{
	int fd = (int)syscall(SYS_perf_event_open, a, tid, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (signal) {
		struct f_owner_ex o = {F_OWNER_TID, tid};

		if (fcntl(fd, F_SETOWN_EX, &o) < 0 ||
		    fcntl(fd, F_SETSIG, BPCOUNT_SIGNAL) < 0 ||
		    fcntl(fd, F_SETFL, O_ASYNC) < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return fd;
}

int bpcount_open(struct bpcount *c, pid_t tid, uint64_t addr, uint64_t period)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = addr;
	a.bp_len = sizeof(long);
	a.sample_period = period;
	a.wakeup_events = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, tid, period != 0);
	if (fd < 0)
		return fd;
	c->fd = fd;
	c->addr = addr;
	c->tid = tid;
	owntrap_armed(tid, addr);
	return 0;
}

int bpcount_read(const struct bpcount *c, uint64_t *count)
{
	if (read(c->fd, count, sizeof(*count)) != sizeof(*count))
		return errno ? -errno : -EIO;
	return 0;
}

int bpcount_reset(const struct bpcount *c)
{
	return ioctl(c->fd, PERF_EVENT_IOC_RESET, 0) < 0 ? -errno : 0;
}

void bpcount_close(struct bpcount *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		owntrap_disarmed(c->tid, c->addr);
	}
	c->fd = -1;
}

int cpuslice_open(int *fd, pid_t tid)
{
	struct perf_event_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000;
	a.wakeup_events = 1;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	ret = perf_open(&a, tid, true);
	if (ret < 0)
		return ret;
	*fd = ret;
	return 0;
}

int cpuslice_arm(int fd, uint64_t ns)
{
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_PERIOD, &ns) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return -errno;
	return 0;
}

int cpuslice_disarm(int fd)
{
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) < 0 ? -errno : 0;
}

int cpuclock_open(int *fd, pid_t tid)
{
	struct perf_event_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1; /* perf_event_paranoid 2 */
	a.exclude_hv = 1;
	ret = perf_open(&a, tid, false);
	if (ret < 0)
		return ret;
	*fd = ret;
	return 0;
}

int cpuclock_read(int fd, uint64_t *ns)
{
	if (read(fd, ns, sizeof(*ns)) != sizeof(*ns))
		return errno ? -errno : -EIO;
	return 0;
}

bool bpcount_is_overflow(const siginfo_t *si, int fd)
{
	return fd >= 0 && si->si_signo == BPCOUNT_SIGNAL &&
	       si->si_code == POLL_IN && si->si_fd == fd;
}
