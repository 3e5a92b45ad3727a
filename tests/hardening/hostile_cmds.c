/* hostile_cmds: calls mrr refuses because it cannot record what the
 * kernel does with them, each named in the refusal (refused.sh):
 *   bpf_prog_load    bpf(BPF_PROG_LOAD)
 *   perf_sampling    perf_event_open of a sampling software event
 *   perf_breakpoint  perf_event_open of a hardware breakpoint
 *   perf_mmap        mmap of a counting perf event's fd
 *   quota_xfs        quotactl(Q_XGETQSTAT)
 *   io_setup         Linux AIO's io_setup
 *   io_uring_enter   io_uring_enter on a new io_uring (its setup alone is
 *                    recorded)
 *   io_uring_mmap    mmap of a new io_uring's submission ring
 *   uffd_register    ioctl(UFFDIO_REGISTER) of a userfaultfd (user-mode
 *                    faults only, which an unprivileged user may ask for)
 *   secret_read      a read from a pipe into memfd_secret memory (traced:
 *                    with mrr record -n)
 *   secret_remap     a second mmap of a memfd_secret file
 *   host_sigbus      a write fault on a page inside a shared file mapping
 *                    that a full tmpfs cannot give (root only: it mounts
 *                    the tmpfs in a mount namespace of its own; otherwise
 *                    it passes without trying)
 * Natively each makes its call, whatever the kernel answers, and prints
 * PASS. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/userfaultfd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/quota.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef Q_XGETQSTAT
#define Q_XGETQSTAT (('X' << 8) + 5)
#endif

static int watched;

static long perf_open(uint32_t type, uint64_t config, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = period;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (type == PERF_TYPE_BREAKPOINT) {
		a.config = 0;
		a.bp_type = HW_BREAKPOINT_W;
		a.bp_addr = (uint64_t)(uintptr_t)&watched;
		a.bp_len = HW_BREAKPOINT_LEN_4;
	}
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long r = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("trying %s\n", mode);
	if (!strcmp(mode, "bpf_prog_load")) {
		static const uint64_t insns[2] = {0xb7, 0x95}; /* r0=0; exit */
		union bpf_attr a;

		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
		a.insns = (uint64_t)(uintptr_t)insns;
		a.insn_cnt = 2;
		a.license = (uint64_t)(uintptr_t) "GPL";
		r = syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	} else if (!strcmp(mode, "perf_sampling")) {
		r = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			      100000);
	} else if (!strcmp(mode, "perf_breakpoint")) {
		r = perf_open(PERF_TYPE_BREAKPOINT, 0, 1);
	} else if (!strcmp(mode, "perf_mmap")) {
		long fd = perf_open(PERF_TYPE_SOFTWARE,
				    PERF_COUNT_SW_TASK_CLOCK, 0);

		if (fd >= 0) {
			void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED,
				       (int)fd, 0);

			r = p == MAP_FAILED ? -1 : 0;
		}
	} else if (!strcmp(mode, "quota_xfs")) {
		char buf[256];

		r = quotactl(QCMD(Q_XGETQSTAT, USRQUOTA), "/", 0, buf);
	} else if (!strcmp(mode, "io_setup")) {
		unsigned long ctx = 0;

		r = syscall(SYS_io_setup, 8, &ctx);
	} else if (!strcmp(mode, "io_uring_enter") ||
		   !strcmp(mode, "io_uring_mmap")) {
		char params[120];
		long fd;

		memset(params, 0, sizeof(params));
		fd = syscall(SYS_io_uring_setup, 8, params);
		if (fd >= 0 && !strcmp(mode, "io_uring_enter"))
			r = syscall(SYS_io_uring_enter, fd, 0, 0, 0, NULL, 0);
		else if (fd >= 0)
			r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 (int)fd, 0) == MAP_FAILED
				    ? -1
				    : 0;
	} else if (!strcmp(mode, "uffd_register")) {
		long fd = syscall(SYS_userfaultfd,
				  O_CLOEXEC | UFFD_USER_MODE_ONLY);
		struct uffdio_api api = {.api = UFFD_API};
		struct uffdio_register reg;
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (fd >= 0 && ioctl((int)fd, UFFDIO_API, &api) == 0) {
			memset(&reg, 0, sizeof(reg));
			reg.range.start = (uint64_t)(uintptr_t)p;
			reg.range.len = 4096;
			reg.mode = UFFDIO_REGISTER_MODE_MISSING;
			r = ioctl((int)fd, UFFDIO_REGISTER, &reg);
		}
	} else if (!strcmp(mode, "secret_read") ||
		   !strcmp(mode, "secret_remap")) {
		long fd = syscall(SYS_memfd_secret, 0);
		int p2c[2];
		char *p = MAP_FAILED;

		if (fd >= 0 && ftruncate((int)fd, 4096) == 0)
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 (int)fd, 0);
		if (p != MAP_FAILED && !strcmp(mode, "secret_remap")) {
			p[0] = 's';
			munmap(p, 4096);
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 (int)fd, 0);
			r = p == MAP_FAILED || p[0] != 's' ? -1 : 0;
		} else if (p != MAP_FAILED && pipe(p2c) == 0 &&
			   write(p2c[1], "secret", 6) == 6) {
			r = read(p2c[0], p, 6) == 6 && !memcmp(p, "secret", 6)
				    ? 0
				    : -1;
		}
	} else if (!strcmp(mode, "host_sigbus")) {
		char dir[] = "/tmp/mrr-full-XXXXXX", path[64], *p;
		static char page[4096];
		int fd;

		if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0 ||
		    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    !mkdtemp(dir) ||
		    mount("mrr-full", dir, "tmpfs", 0, "size=16k") < 0) {
			printf("no private tmpfs: %s\n", strerror(errno));
			printf("PASS\n");
			return 0;
		}
		snprintf(path, sizeof(path), "%s/full", dir);
		fd = open(path, O_CREAT | O_RDWR, 0600);
		while (write(fd, page, sizeof(page)) == sizeof(page))
			;
		snprintf(path, sizeof(path), "%s/sparse", dir);
		fd = open(path, O_CREAT | O_RDWR, 0600);
		if (ftruncate(fd, 4096) == 0) {
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
			if (p != MAP_FAILED)
				p[0] = 1; /* SIGBUS: no page left */
		}
	} else {
		fprintf(stderr, "unknown mode '%s'\n", mode);
		return 2;
	}
	printf("result %s\nPASS\n", r < 0 ? "error" : "ok");
	return 0;
}
