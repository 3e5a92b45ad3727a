// The syscall table against the kernel headers (both ways), its internal
// consistency, and its out-parameter rules against what the running kernel
// really writes.
#include <gtest/gtest.h>

#include <asm/unistd_64.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/stat.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/times.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "syscalls/table.h"

// Syscalls newer than the installed <asm/unistd_64.h> (Debian 12 ships 6.1
// headers). Numbers from the kernel's syscall_64.tbl; with newer headers the
// real definitions win and are what the test checks.
#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait 455
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue 456
#endif
#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#ifndef __NR_listmount
#define __NR_listmount 458
#endif
#ifndef __NR_lsm_get_self_attr
#define __NR_lsm_get_self_attr 459
#endif
#ifndef __NR_lsm_set_self_attr
#define __NR_lsm_set_self_attr 460
#endif
#ifndef __NR_lsm_list_modules
#define __NR_lsm_list_modules 461
#endif
#ifndef __NR_mseal
#define __NR_mseal 462
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif
#ifndef __NR_getxattrat
#define __NR_getxattrat 464
#endif
#ifndef __NR_listxattrat
#define __NR_listxattrat 465
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr 467
#endif
#ifndef __NR_file_getattr
#define __NR_file_getattr 468
#endif
#ifndef __NR_file_setattr
#define __NR_file_setattr 469
#endif
#ifndef __NR_listns
#define __NR_listns 470
#endif

namespace
{

struct DefEntry {
	long nr;
	const char *name;
	long header_nr;
};

// Each .def line expands to its number, its name and the header's __NR_name:
// a name the header does not know fails to compile.
#define SC(nr, name, ...) {nr, #name, __NR_##name},
const DefEntry kDefEntries[] = {
#include "syscalls/syscalls.def"
};
#undef SC

const char *const kHeaderPaths[] = {
	"/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
	"/usr/include/asm/unistd_64.h",
};

std::map<std::string, long> ParseHeader()
{
	std::map<std::string, long> defs;
	const std::regex define_re("^#define __NR_(\\w+) (\\d+)\\s*$");

	for (const char *path : kHeaderPaths) {
		std::ifstream in(path);
		std::string line;
		std::smatch m;

		if (!in)
			continue;
		while (std::getline(in, line)) {
			if (std::regex_match(line, m, define_re))
				defs[m[1]] = std::stol(m[2]);
		}
		break;
	}
	return defs;
}

TEST(SyscallTable, EveryDefLineMatchesHeaderNumber)
{
	std::set<long> seen;

	ASSERT_GT(sizeof(kDefEntries) / sizeof(kDefEntries[0]), 370u);
	for (const DefEntry &e : kDefEntries) {
		EXPECT_EQ(e.nr, e.header_nr) << e.name;
		EXPECT_TRUE(seen.insert(e.nr).second)
			<< "number " << e.nr << " listed twice";
		EXPECT_STREQ(mrr_syscall_name(e.nr), e.name);
	}
}

TEST(SyscallTable, EveryHeaderDefineIsInTable)
{
	std::map<std::string, long> defs = ParseHeader();

	// The x86-64 header of any kernel since 5.1 has more than 350.
	ASSERT_GT(defs.size(), 350u) << "could not parse <asm/unistd_64.h>";
	for (const auto &d : defs) {
		const char *name = mrr_syscall_name(d.second);

		ASSERT_NE(name, nullptr) << "__NR_" << d.first << " "
					 << d.second << " is not in the table";
		EXPECT_EQ(d.first, name) << "number " << d.second;
	}
}

TEST(SyscallTable, TableHasNothingBeyondTheDefFile)
{
	size_t count = 0;

	for (long nr = 0; nr < MRR_SYSCALL_NR_MAX; nr++) {
		if (mrr_syscall_lookup(nr))
			count++;
	}
	EXPECT_EQ(count, sizeof(kDefEntries) / sizeof(kDefEntries[0]));
	// The gap between rseq and pidfd_send_signal stays empty.
	for (long nr = 335; nr < 424; nr++)
		EXPECT_EQ(mrr_syscall_lookup(nr), nullptr) << nr;
}

TEST(SyscallTable, LookupOutOfRange)
{
	EXPECT_EQ(mrr_syscall_lookup(-1), nullptr);
	EXPECT_EQ(mrr_syscall_lookup(100000), nullptr);
	EXPECT_EQ(mrr_syscall_lookup(MRR_SYSCALL_NR_MAX), nullptr);
	EXPECT_EQ(mrr_syscall_lookup(400), nullptr);
	EXPECT_EQ(mrr_syscall_name(-1), nullptr);
	EXPECT_EQ(mrr_syscall_name(100000), nullptr);
	ASSERT_NE(mrr_syscall_lookup(0), nullptr);
	EXPECT_STREQ(mrr_syscall_lookup(0)->name, "read");
}

TEST(SyscallTable, ByNameRoundTrips)
{
	for (const DefEntry &e : kDefEntries)
		EXPECT_EQ(mrr_syscall_by_name(e.name), e.nr) << e.name;
	EXPECT_EQ(mrr_syscall_by_name("openat"), 257);
	EXPECT_EQ(mrr_syscall_by_name("no_such_call"), -1);
	EXPECT_EQ(mrr_syscall_by_name(""), -1);
	EXPECT_EQ(mrr_syscall_by_name(nullptr), -1);
}

bool UsesLenArg(uint8_t kind)
{
	return kind == MRR_OUT_RET || kind == MRR_OUT_ARG ||
	       kind == MRR_OUT_LENPTR_BEFORE || kind == MRR_OUT_LENPTR_AFTER ||
	       kind == MRR_OUT_RET_PLUS || kind == MRR_OUT_ARG_DIVUP;
}

TEST(SyscallTable, EntriesAreConsistent)
{
	for (long nr = 0; nr < MRR_SYSCALL_NR_MAX; nr++) {
		const struct mrr_syscall_desc *d = mrr_syscall_lookup(nr);
		bool seen_none = false;

		if (!d)
			continue;
		SCOPED_TRACE(d->name);
		EXPECT_LE(d->nargs, 6);
		EXPECT_GT(d->cls, MRR_SC_UNKNOWN);
		EXPECT_LE(d->cls, MRR_SC_UNSUPPORTED);
		for (int i = 0; i < 6; i++) {
			EXPECT_LT(d->arg_fmt[i], MRR_ARG_FMT_MAX);
			if (i >= d->nargs) {
				EXPECT_EQ(d->arg_fmt[i], 0) << "arg " << i;
			}
		}
		for (int i = 0; i < MRR_SC_MAX_OUT; i++) {
			const struct mrr_out_rule *r = &d->out[i];

			EXPECT_LT(r->kind, MRR_OUT_KIND_MAX);
			if (r->kind == MRR_OUT_NONE) {
				seen_none = true;
				continue;
			}
			EXPECT_FALSE(seen_none)
				<< "rule " << i << " after a gap";
			EXPECT_TRUE(d->cls == MRR_SC_EMULATE ||
				    d->cls == MRR_SC_EXECUTE)
				<< "rules on a SPECIAL or UNSUPPORTED call";
			EXPECT_LT(r->ptr_arg, d->nargs) << "rule " << i;
			// The written block is addressed by a pointer argument.
			EXPECT_EQ(d->arg_fmt[r->ptr_arg], MRR_ARG_PTR)
				<< "rule " << i;
			if (UsesLenArg(r->kind)) {
				EXPECT_LT(r->len_arg, d->nargs) << "rule " << i;
				EXPECT_NE(r->len_arg, r->ptr_arg)
					<< "rule " << i;
			}
			if (r->kind == MRR_OUT_LENPTR_BEFORE ||
			    r->kind == MRR_OUT_LENPTR_AFTER) {
				EXPECT_EQ(d->arg_fmt[r->len_arg], MRR_ARG_PTR);
			}
			if (r->kind == MRR_OUT_FIXED ||
			    r->kind == MRR_OUT_ARG_DIVUP) {
				EXPECT_GT(r->size, 0u) << "rule " << i;
			}
			EXPECT_EQ(r->flags & ~MRR_OUT_F_ON_ERROR, 0);
		}
	}
}

void ExpectClass(const char *name, enum mrr_sc_class cls)
{
	long nr = mrr_syscall_by_name(name);

	ASSERT_GE(nr, 0) << name;
	EXPECT_EQ(mrr_syscall_lookup(nr)->cls, cls) << name;
}

TEST(SyscallTable, ReplayClassesOfKeyCalls)
{
	for (const char *n :
	     {"munmap", "mprotect", "brk", "arch_prctl", "rt_sigaction",
	      "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "exit",
	      "exit_group", "set_robust_list", "pkey_mprotect", "pkey_alloc",
	      "pkey_free", "mseal", "set_tid_address"})
		ExpectClass(n, MRR_SC_EXECUTE);
	for (const char *n : {"mmap",
			      "mremap",
			      "madvise",
			      "process_madvise",
			      "mlock",
			      "mlock2",
			      "munlock",
			      "mlockall",
			      "munlockall",
			      "execve",
			      "execveat",
			      "fork",
			      "vfork",
			      "clone",
			      "clone3",
			      "wait4",
			      "waitid",
			      "ioctl",
			      "fcntl",
			      "readv",
			      "preadv",
			      "preadv2",
			      "recvmsg",
			      "recvmmsg",
			      "select",
			      "pselect6",
			      "prctl",
			      "shmat",
			      "shmdt",
			      "rseq",
			      "ptrace",
			      "kill",
			      "tgkill",
			      "tkill",
			      "rt_sigqueueinfo",
			      "rt_tgsigqueueinfo",
			      "msync",
			      "restart_syscall",
			      "perf_event_open",
			      "bpf",
			      "quotactl",
			      "quotactl_fd",
			      "sysfs"})
		ExpectClass(n, MRR_SC_SPECIAL);
	for (const char *n :
	     {"io_uring_enter", "io_uring_register", "kexec_load",
	      "kexec_file_load", "init_module", "finit_module", "delete_module",
	      "io_setup", "map_shadow_stack"}) {
		ExpectClass(n, MRR_SC_UNSUPPORTED);
		/* a deliberate refusal says why */
		EXPECT_NE(mrr_syscall_refusal(mrr_syscall_by_name(n)), nullptr)
			<< n;
	}
	ExpectClass("userfaultfd",
		    MRR_SC_EMULATE); /* UFFDIO_REGISTER: refused */
	ExpectClass("remap_file_pages", MRR_SC_EXECUTE);
	ExpectClass("io_uring_setup", MRR_SC_EMULATE); /* only an fd */
	for (const char *n :
	     {"read",	       "write",	     "openat",	"close",
	      "fstat",	       "newfstatat", "statx",	"getdents64",
	      "clock_gettime", "getrandom",  "pipe2",	"mincore",
	      "epoll_wait",    "poll",	     "ppoll",	"getcwd",
	      "uname",	       "writev",     "sendmsg", "getsockname",
	      "recvfrom",      "futex_wait", "msgrcv"})
		ExpectClass(n, MRR_SC_EMULATE);
}

const struct mrr_out_rule &Rule(const char *name, int i)
{
	return mrr_syscall_lookup(mrr_syscall_by_name(name))->out[i];
}

void ExpectFixed(const char *name, int i, int ptr, size_t size)
{
	const struct mrr_out_rule &r = Rule(name, i);

	EXPECT_EQ(r.kind, MRR_OUT_FIXED) << name;
	EXPECT_EQ(r.ptr_arg, ptr) << name;
	EXPECT_EQ(r.size, size) << name;
}

// The fixed sizes are the x86-64 struct sizes the host's headers define.
TEST(SyscallTable, FixedSizesMatchKernelStructs)
{
	ExpectFixed("stat", 0, 1, sizeof(struct stat));
	ExpectFixed("fstat", 0, 1, sizeof(struct stat));
	ExpectFixed("lstat", 0, 1, sizeof(struct stat));
	ExpectFixed("newfstatat", 0, 2, sizeof(struct stat));
	ExpectFixed("statx", 0, 4, sizeof(struct statx));
	ExpectFixed("uname", 0, 0, sizeof(struct utsname));
	ExpectFixed("sysinfo", 0, 0, sizeof(struct sysinfo));
	ExpectFixed("getrusage", 0, 1, sizeof(struct rusage));
	ExpectFixed("times", 0, 0, sizeof(struct tms));
	ExpectFixed("clock_gettime", 0, 1, sizeof(struct timespec));
	ExpectFixed("clock_getres", 0, 1, sizeof(struct timespec));
	ExpectFixed("gettimeofday", 0, 0, sizeof(struct timeval));
	ExpectFixed("gettimeofday", 1, 1, sizeof(struct timezone));
	ExpectFixed("time", 0, 0, sizeof(time_t));
	ExpectFixed("getrlimit", 0, 1, sizeof(struct rlimit));
	ExpectFixed("prlimit64", 0, 3, sizeof(struct rlimit));
	ExpectFixed("getitimer", 0, 1, sizeof(struct itimerval));
	ExpectFixed("timer_gettime", 0, 1, sizeof(struct itimerspec));
	ExpectFixed("timerfd_gettime", 0, 1, sizeof(struct itimerspec));
	ExpectFixed("statfs", 0, 1, sizeof(struct statfs));
	ExpectFixed("fstatfs", 0, 1, sizeof(struct statfs));
	ExpectFixed("adjtimex", 0, 0, sizeof(struct timex));
	ExpectFixed("sigaltstack", 0, 1, sizeof(stack_t));
	ExpectFixed("rt_sigtimedwait", 0, 1, sizeof(siginfo_t));
	ExpectFixed("pipe", 0, 0, 2 * sizeof(int));
	ExpectFixed("pipe2", 0, 0, 2 * sizeof(int));
	ExpectFixed("socketpair", 0, 3, 2 * sizeof(int));
	ExpectFixed("nanosleep", 0, 1, sizeof(struct timespec));
	EXPECT_EQ(Rule("nanosleep", 0).flags, MRR_OUT_F_ON_ERROR);
	ExpectFixed("clock_nanosleep", 0, 3, sizeof(struct timespec));
	ExpectFixed("capget", 1, 1, 2 * sizeof(struct __user_cap_data_struct));
	for (int i = 0; i < 3; i++) {
		ExpectFixed("getresuid", i, i, sizeof(uid_t));
		ExpectFixed("getresgid", i, i, sizeof(gid_t));
	}

	EXPECT_EQ(Rule("epoll_wait", 0).kind, MRR_OUT_RET);
	EXPECT_EQ(Rule("epoll_wait", 0).size, sizeof(struct epoll_event));
	EXPECT_EQ(Rule("epoll_pwait", 0).size, sizeof(struct epoll_event));
	EXPECT_EQ(Rule("getgroups", 0).size, sizeof(gid_t));
	EXPECT_EQ(Rule("sendmmsg", 0).size, sizeof(struct mmsghdr));
	EXPECT_EQ(Rule("poll", 0).size, 8u);
	EXPECT_EQ(Rule("read", 0).kind, MRR_OUT_RET);
	EXPECT_EQ(Rule("read", 0).ptr_arg, 1);
	EXPECT_EQ(Rule("read", 0).len_arg, 2);
	EXPECT_EQ(Rule("read", 0).size, 0u);
}

TEST(SyscallTable, OutRuleLen)
{
	uint64_t args[6] = {3, 0x1000, 100, 0, 0, 0};
	struct mrr_out_rule r = {};

	r.kind = MRR_OUT_RET;
	r.ptr_arg = 1;
	r.len_arg = 2;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 10, 0, 0), 10u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, 200, 0, 0), 100u); // capped
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 0u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, -EINTR, 0, 0), 0u);
	r.size = 12; // elements
	EXPECT_EQ(mrr_out_rule_len(&r, args, 3, 0, 0), 36u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, 1000, 0, 0), 1200u);

	r = {};
	r.kind = MRR_OUT_FIXED;
	r.ptr_arg = 1;
	r.size = 16;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 16u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, -EINTR, 0, 0), 0u);
	r.flags = MRR_OUT_F_ON_ERROR;
	EXPECT_EQ(mrr_out_rule_len(&r, args, -EINTR, 0, 0), 16u);
	r.ptr_arg = 3; // NULL pointer: nothing
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 0u);

	r = {};
	r.kind = MRR_OUT_ARG;
	r.ptr_arg = 1;
	r.len_arg = 2;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 100u);
	r.size = 8;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 800u);
	args[2] = UINT64_MAX / 2;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), UINT64_MAX);
	args[2] = 100;

	r = {};
	r.kind = MRR_OUT_LENPTR_AFTER;
	r.ptr_arg = 1;
	r.len_arg = 2;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 128, 16), 16u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 4, 16), 4u); // truncated
	EXPECT_EQ(mrr_out_rule_len(&r, args, -EINVAL, 128, 16), 0u);
	r.kind = MRR_OUT_LENPTR_BEFORE;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 128, 16), 128u);

	r = {};
	r.kind = MRR_OUT_RET_PLUS;
	r.ptr_arg = 1;
	r.len_arg = 2;
	r.size = 8;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 5, 0, 0), 13u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 8u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, 500, 0, 0), 108u);
	EXPECT_EQ(mrr_out_rule_len(&r, args, -ENOMSG, 0, 0), 0u);

	r = {};
	r.kind = MRR_OUT_ARG_DIVUP;
	r.ptr_arg = 1;
	r.len_arg = 2;
	r.size = 4096;
	args[2] = 4096;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 1u);
	args[2] = 4097;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 2u);
	args[2] = 0;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 0u);

	r = {};
	r.kind = MRR_OUT_KIND_MAX;
	r.ptr_arg = 1;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 0u);
	r.kind = MRR_OUT_FIXED;
	r.ptr_arg = 6; // out of range
	r.size = 4;
	EXPECT_EQ(mrr_out_rule_len(&r, args, 0, 0, 0), 0u);
}

// ---- The rules against the running kernel ----
//
// Each probe fills the memory it passes with a pattern, makes the real
// syscall, and checks that every byte that changed lies inside a block the
// table's rules describe for that call and result.

struct Region {
	void *p;
	size_t n;
};

const uint8_t kPattern = 0xa5;

long Probe(const char *name, std::array<uint64_t, 6> a,
	   std::vector<Region> regions)
{
	long nr = mrr_syscall_by_name(name);
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(nr);
	std::vector<std::vector<uint8_t>> before;
	uint32_t len_before[MRR_SC_MAX_OUT] = {},
		 len_after[MRR_SC_MAX_OUT] = {};
	long ret;

	EXPECT_NE(d, nullptr) << name;
	if (!d)
		return -ENOSYS;
	EXPECT_TRUE(d->cls == MRR_SC_EMULATE || d->cls == MRR_SC_EXECUTE)
		<< name;
	for (const Region &r : regions) {
		const uint8_t *p = static_cast<const uint8_t *>(r.p);

		before.emplace_back(p, p + r.n);
	}
	for (int i = 0; i < MRR_SC_MAX_OUT; i++) {
		uint8_t k = d->out[i].kind;

		if ((k == MRR_OUT_LENPTR_BEFORE || k == MRR_OUT_LENPTR_AFTER) &&
		    a[d->out[i].len_arg])
			memcpy(&len_before[i],
			       reinterpret_cast<void *>(a[d->out[i].len_arg]),
			       4);
	}
	ret = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (ret == -1)
		ret = -errno;
	for (int i = 0; i < MRR_SC_MAX_OUT; i++) {
		uint8_t k = d->out[i].kind;

		if ((k == MRR_OUT_LENPTR_BEFORE || k == MRR_OUT_LENPTR_AFTER) &&
		    a[d->out[i].len_arg])
			memcpy(&len_after[i],
			       reinterpret_cast<void *>(a[d->out[i].len_arg]),
			       4);
	}
	for (size_t ri = 0; ri < regions.size(); ri++) {
		const uint8_t *p = static_cast<const uint8_t *>(regions[ri].p);

		for (size_t j = 0; j < regions[ri].n; j++) {
			uint64_t addr = reinterpret_cast<uintptr_t>(p + j);
			bool covered = false;

			if (p[j] == before[ri][j])
				continue;
			for (int i = 0; i < MRR_SC_MAX_OUT; i++) {
				const struct mrr_out_rule *r = &d->out[i];
				uint64_t start = a[r->ptr_arg];
				uint64_t len = mrr_out_rule_len(
					r, a.data(), ret, len_before[i],
					len_after[i]);

				if (r->kind != MRR_OUT_NONE && start &&
				    addr >= start && addr - start < len)
					covered = true;
			}
			EXPECT_TRUE(covered)
				<< name << " (result " << ret << ") wrote byte "
				<< j << " of region " << ri
				<< " outside its rules";
			if (!covered)
				break;
		}
	}
	return ret;
}

// A patterned buffer with room past the end, so that overruns show.
struct Buf {
	std::vector<uint8_t> bytes;

	explicit Buf(size_t n) : bytes(n, kPattern)
	{
	}
	uint64_t addr()
	{
		return reinterpret_cast<uintptr_t>(bytes.data());
	}
	Region region()
	{
		return {bytes.data(), bytes.size()};
	}
};

template <typename T> uint64_t U(T *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

TEST(SyscallRulesVsKernel, FixedSizeStructs)
{
	Buf b(1024), c(1024);

	EXPECT_EQ(Probe("uname", {b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("sysinfo", {b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("clock_gettime", {CLOCK_MONOTONIC, b.addr()},
			{b.region()}),
		  0);
	EXPECT_EQ(
		Probe("clock_getres", {CLOCK_REALTIME, b.addr()}, {b.region()}),
		0);
	EXPECT_EQ(Probe("gettimeofday", {b.addr(), c.addr()},
			{b.region(), c.region()}),
		  0);
	EXPECT_EQ(Probe("getrusage", {RUSAGE_SELF, b.addr()}, {b.region()}), 0);
	EXPECT_GE(Probe("times", {b.addr()}, {b.region()}), 0);
	EXPECT_GE(Probe("time", {b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("getrlimit", {RLIMIT_NOFILE, b.addr()}, {b.region()}),
		  0);
	EXPECT_EQ(Probe("prlimit64", {0, RLIMIT_STACK, 0, b.addr()},
			{b.region()}),
		  0);
	EXPECT_EQ(Probe("getitimer", {ITIMER_REAL, b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("sched_rr_get_interval", {0, b.addr()}, {b.region()}),
		  0);
	EXPECT_EQ(Probe("sched_getparam", {0, b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("statfs", {U("/"), b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("rt_sigpending", {b.addr(), 8}, {b.region()}), 0);
	EXPECT_EQ(Probe("rt_sigprocmask", {SIG_BLOCK, 0, b.addr(), 8},
			{b.region()}),
		  0);
	EXPECT_EQ(
		Probe("rt_sigaction", {SIGUSR1, 0, b.addr(), 8}, {b.region()}),
		0);
	EXPECT_EQ(Probe("sigaltstack", {0, b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("get_robust_list", {0, b.addr(), c.addr()},
			{b.region(), c.region()}),
		  0);
	EXPECT_EQ(Probe("getcpu", {b.addr(), c.addr(), 0},
			{b.region(), c.region()}),
		  0);
}

TEST(SyscallRulesVsKernel, Stat)
{
	Buf b(1024);
	int fd = open("/", O_RDONLY | O_DIRECTORY);

	ASSERT_GE(fd, 0);
	EXPECT_EQ(Probe("stat", {U("/"), b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("lstat", {U("/"), b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("fstat", {(uint64_t)fd, b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("fstatfs", {(uint64_t)fd, b.addr()}, {b.region()}), 0);
	EXPECT_EQ(Probe("newfstatat", {(uint64_t)AT_FDCWD, U("/"), b.addr(), 0},
			{b.region()}),
		  0);
	EXPECT_EQ(Probe("statx",
			{(uint64_t)AT_FDCWD, U("/"), 0, STATX_ALL, b.addr()},
			{b.region()}),
		  0);
	EXPECT_GT(Probe("getdents64", {(uint64_t)fd, b.addr(), 512},
			{b.region()}),
		  0);
	close(fd);
}

TEST(SyscallRulesVsKernel, ReturnValueSizedBuffers)
{
	Buf b(8192);
	int p[2];

	EXPECT_GT(Probe("getcwd", {b.addr(), 4096}, {b.region()}), 0);
	// Truncated: the result is the full length, the buffer holds 8.
	EXPECT_EQ(Probe("readlink", {U("/proc/self/exe"), b.addr(), 8},
			{b.region()}),
		  8);
	EXPECT_EQ(Probe("getrandom", {b.addr(), 32, 0}, {b.region()}), 32);
	EXPECT_GT(Probe("sched_getaffinity", {0, 128, b.addr()}, {b.region()}),
		  0);
	EXPECT_GE(Probe("getgroups", {64, b.addr()}, {b.region()}), 0);

	ASSERT_EQ(pipe(p), 0);
	ASSERT_EQ(write(p[1], "abc", 3), 3);
	EXPECT_EQ(Probe("read", {(uint64_t)p[0], b.addr(), 100}, {b.region()}),
		  3);
	close(p[0]);
	close(p[1]);
}

TEST(SyscallRulesVsKernel, PipesAndSockets)
{
	Buf fds(64), addr(256), len(16), data(256);
	int sv[2];

	ASSERT_EQ(Probe("pipe2", {fds.addr(), O_CLOEXEC}, {fds.region()}), 0);
	memcpy(sv, fds.bytes.data(), sizeof(sv));
	close(sv[0]);
	close(sv[1]);

	ASSERT_EQ(Probe("socketpair", {AF_UNIX, SOCK_DGRAM, 0, fds.addr()},
			{fds.region()}),
		  0);
	memcpy(sv, fds.bytes.data(), sizeof(sv));

	// An abstract name longer than the caller's buffer: the kernel
	// reports the full length but copies only what fits.
	struct sockaddr_un un = {};
	un.sun_family = AF_UNIX;
	snprintf(un.sun_path + 1, sizeof(un.sun_path) - 1, "mrr-table-%d",
		 getpid());
	socklen_t un_len = offsetof(struct sockaddr_un, sun_path) + 1 +
			   strlen(un.sun_path + 1);
	ASSERT_EQ(bind(sv[0], (struct sockaddr *)&un, un_len), 0);
	uint32_t small = 6;
	memcpy(len.bytes.data(), &small, 4);
	EXPECT_EQ(Probe("getsockname",
			{(uint64_t)sv[0], addr.addr(), len.addr()},
			{addr.region(), len.region()}),
		  0);
	uint32_t big = 200;
	memcpy(len.bytes.data(), &big, 4);
	EXPECT_EQ(Probe("getsockname",
			{(uint64_t)sv[0], addr.addr(), len.addr()},
			{addr.region(), len.region()}),
		  0);

	uint32_t optlen = 16;
	memcpy(len.bytes.data(), &optlen, 4);
	EXPECT_EQ(Probe("getsockopt",
			{(uint64_t)sv[0], SOL_SOCKET, SO_TYPE, data.addr(),
			 len.addr()},
			{data.region(), len.region()}),
		  0);

	ASSERT_EQ(send(sv[1], "hello", 5, 0), 5);
	memcpy(len.bytes.data(), &big, 4);
	EXPECT_EQ(Probe("recvfrom",
			{(uint64_t)sv[0], data.addr(), 100, 0, addr.addr(),
			 len.addr()},
			{data.region(), addr.region(), len.region()}),
		  5);

	struct mmsghdr msgs[3] = {};
	struct iovec iov = {(void *)"xy", 2};
	for (auto &m : msgs) {
		m.msg_hdr.msg_iov = &iov;
		m.msg_hdr.msg_iovlen = 1;
	}
	EXPECT_EQ(Probe("sendmmsg", {(uint64_t)sv[1], U(msgs), 2, 0},
			{{msgs, sizeof(msgs)}}),
		  2);
	close(sv[0]);
	close(sv[1]);
}

TEST(SyscallRulesVsKernel, PollAndEpoll)
{
	int efd = eventfd(1, EFD_CLOEXEC);
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {};
	Buf events(512);
	struct pollfd pfds[4];

	ASSERT_GE(efd, 0);
	ASSERT_GE(epfd, 0);
	ev.events = EPOLLIN;
	ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev), 0);
	EXPECT_EQ(Probe("epoll_wait", {(uint64_t)epfd, events.addr(), 10, 0},
			{events.region()}),
		  1);
	EXPECT_EQ(Probe("epoll_pwait",
			{(uint64_t)epfd, events.addr(), 10, 0, 0, 8},
			{events.region()}),
		  1);

	memset(pfds, 0, sizeof(pfds));
	pfds[0].fd = efd;
	pfds[0].events = POLLIN;
	pfds[1].fd = efd;
	pfds[1].events = POLLOUT;
	pfds[2].fd = -1;
	pfds[3].revents = 0x5a5a; // past nfds: must stay
	EXPECT_EQ(Probe("poll", {U(pfds), 3, 0}, {{pfds, sizeof(pfds)}}), 2);
	struct timespec ts = {0, 0};
	EXPECT_EQ(Probe("ppoll", {U(pfds), 3, U(&ts), 0, 8},
			{{pfds, sizeof(pfds)}, {&ts, sizeof(ts)}}),
		  2);
	close(epfd);
	close(efd);
}

TEST(SyscallRulesVsKernel, Mincore)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(nullptr, 3 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	Buf vec(64);

	ASSERT_NE(p, MAP_FAILED);
	memset(p, 1, pg);
	EXPECT_EQ(Probe("mincore", {U(p), (uint64_t)(2 * pg + 1), vec.addr()},
			{vec.region()}),
		  0);
	munmap(p, 3 * pg);
}

TEST(SyscallRulesVsKernel, Credentials)
{
	Buf a(16), b(16), c(16);
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	Buf data(64);

	EXPECT_EQ(Probe("getresuid", {a.addr(), b.addr(), c.addr()},
			{a.region(), b.region(), c.region()}),
		  0);
	EXPECT_EQ(Probe("getresgid", {a.addr(), b.addr(), c.addr()},
			{a.region(), b.region(), c.region()}),
		  0);
	EXPECT_EQ(Probe("capget", {U(&hdr), data.addr()},
			{{&hdr, sizeof(hdr)}, data.region()}),
		  0);
	// An unknown version is answered with the kernel's in the header.
	hdr.version = 0x12345678;
	EXPECT_EQ(Probe("capget", {U(&hdr), data.addr()},
			{{&hdr, sizeof(hdr)}, data.region()}),
		  -EINVAL);
	EXPECT_NE(hdr.version, 0x12345678u);
}

TEST(SyscallRulesVsKernel, SysvMessage)
{
	int q = msgget(IPC_PRIVATE, 0600);
	struct {
		long mtype;
		char text[16];
	} msg = {7, "hello"};
	Buf b(128);

	if (q < 0)
		GTEST_SKIP() << "System V message queues unavailable: "
			     << strerror(errno);
	ASSERT_EQ(msgsnd(q, &msg, 5, 0), 0);
	EXPECT_EQ(Probe("msgrcv", {(uint64_t)q, b.addr(), 64, 0, 0},
			{b.region()}),
		  5);
	msgctl(q, IPC_RMID, nullptr);
}

TEST(SyscallRulesVsKernel, NewerCalls)
{
	int fd = memfd_create("mrr-table", MFD_CLOEXEC);
	uint64_t range[2] = {0, 0};
	Buf cs(128), ids(256), size(16);
	uint32_t sz = 64;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "0123456789", 10), 10);
	EXPECT_EQ(Probe("pread64", {(uint64_t)fd, cs.addr(), 100, 0},
			{cs.region()}),
		  10);
	// May be missing from an older kernel; the check holds either way.
	Probe("cachestat", {(uint64_t)fd, U(range), cs.addr(), 0},
	      {cs.region()});
	memcpy(size.bytes.data(), &sz, 4);
	Probe("lsm_list_modules", {ids.addr(), size.addr(), 0},
	      {ids.region(), size.region()});
	Probe("sched_getattr", {0, cs.addr(), 56, 0}, {cs.region()});
	close(fd);
}

} // namespace

TEST(SyscallTable, IoctlsOfLoopDevicesAndRefusals)
{
	uint32_t size;
	const char *name;

	/* answers in its result: nothing written */
	EXPECT_EQ(mrr_ioctl_out(0x4C82, &size, &name), MRR_IOCTL_NONE);
	EXPECT_STREQ(name, "LOOP_CTL_GET_FREE");
	/* struct loop_info64 */
	EXPECT_EQ(mrr_ioctl_out(0x4C05, &size, &name), MRR_IOCTL_FIXED);
	EXPECT_EQ(size, 232u);
	/* BLKROTATIONAL writes an unsigned short */
	EXPECT_EQ(mrr_ioctl_out(0x127E, &size, &name), MRR_IOCTL_FIXED);
	EXPECT_EQ(size, 2u);
	/* an unlisted loop request is still refused as unknown */
	EXPECT_EQ(mrr_ioctl_out(0x4C7F, &size, &name), MRR_IOCTL_UNKNOWN);
	EXPECT_EQ(mrr_ioctl_out(0xC020AA00, &size, &name), MRR_IOCTL_REFUSED);
	EXPECT_STREQ(name, "UFFDIO_REGISTER");
	EXPECT_NE(mrr_ioctl_refusal(0xC020AA00), nullptr);
	EXPECT_EQ(mrr_ioctl_refusal(0x4C82), nullptr);
}
