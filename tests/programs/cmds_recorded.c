/* cmds_recorded: the parts of perf_event_open, bpf and quotactl that mrr
 * records (the rest is refused: tests/hardening/hostile_cmds.c).
 *   - perf_event_open of a counting software event (task clock), enabled
 *     and disabled with ioctls; its count read twice into buffers filled
 *     with different bytes must give the same answer;
 *   - bpf: an array map created, an element updated, then looked up and
 *     the next key asked for, each twice into differently filled buffers
 *     (as an unprivileged user bpf answers EPERM, which is recorded too);
 *   - quotactl(Q_GETFMT, Q_GETINFO, Q_GETQUOTA) on the root file system:
 *     whatever the kernel answers (usually an error without quotas).
 * The replay must hand back exactly what the kernel wrote.
 */
#include "mrr_test.h"

#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/syscall.h>

static void perf(void)
{
	struct perf_event_attr attr;
	uint64_t a = 0x5555555555555555ull, b = 0xaaaaaaaaaaaaaaaaull;
	volatile unsigned long x = 0;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("perf_event_open: %s\n", strerror(errno));
		return;
	}
	MT_SYS(ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	MT_SYS(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	for (unsigned long i = 0; i < 1000000; i++)
		x += i;
	MT_SYS(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	MT_CHECK(read(fd, &a, 8) == 8 && read(fd, &b, 8) == 8, "read: %s",
		 strerror(errno));
	MT_CHECK(a == b && a > 0, "task clock %llu then %llu",
		 (unsigned long long)a, (unsigned long long)b);
	printf("perf_event_open: a task clock that counted, read twice\n");
	close(fd);
}

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static void maps(void)
{
	union bpf_attr attr;
	uint32_t key = 1, next[2] = {0x55555555, 0xaaaaaaaa};
	uint64_t value = 0x1122334455667788ull, got[2];
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 4;
	fd = (int)bpf(BPF_MAP_CREATE, &attr);
	if (fd < 0) {
		printf("bpf: %s\n", strerror(errno));
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)fd;
	attr.key = (uint64_t)(uintptr_t)&key;
	attr.value = (uint64_t)(uintptr_t)&value;
	MT_SYS(bpf(BPF_MAP_UPDATE_ELEM, &attr));
	got[0] = 0x5555555555555555ull;
	got[1] = 0xaaaaaaaaaaaaaaaaull;
	for (int i = 0; i < 2; i++) {
		attr.value = (uint64_t)(uintptr_t)&got[i];
		MT_SYS(bpf(BPF_MAP_LOOKUP_ELEM, &attr));
		attr.next_key = (uint64_t)(uintptr_t)&next[i];
		MT_SYS(bpf(BPF_MAP_GET_NEXT_KEY, &attr));
	}
	MT_CHECK(got[0] == value && got[1] == value, "lookups %llx %llx",
		 (unsigned long long)got[0], (unsigned long long)got[1]);
	MT_CHECK(next[0] == 2 && next[1] == 2, "next keys %u %u", next[0],
		 next[1]);
	printf("bpf: array map updated, looked up, next key 2, twice\n");
	close(fd);
}

static void quota(void)
{
	static const struct {
		int cmd;
		const char *name;
	} cmds[] = {
		{Q_GETFMT, "Q_GETFMT"},
		{Q_GETINFO, "Q_GETINFO"},
		{Q_GETQUOTA, "Q_GETQUOTA"},
	};
	unsigned char a[128], b[128];

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		long ra, rb;

		memset(a, 0x55, sizeof(a));
		memset(b, 0xaa, sizeof(b));
		ra = quotactl(QCMD(cmds[i].cmd, USRQUOTA), "/", 0, (void *)a);
		rb = quotactl(QCMD(cmds[i].cmd, USRQUOTA), "/", 0, (void *)b);
		MT_CHECK(ra == rb, "%s: %ld then %ld", cmds[i].name, ra, rb);
		if (ra == 0)
			MT_CHECK(memcmp(a, b, 4) == 0, "%s: answers differ",
				 cmds[i].name);
		printf("quotactl(%s): %s\n", cmds[i].name,
		       ra == 0 ? "same answer twice" : "fails");
	}
}

int main(void)
{
	mt_init();
	perf();
	maps();
	quota();
	mt_pass();
	return 0;
}
