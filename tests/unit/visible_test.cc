// Pieces of what a user sees: the one-line descriptions of events in a
// divergence report (every kind decoded), and which argument registers the
// replay compares for calls that read only some of theirs.
#include <gtest/gtest.h>

#include <asm/unistd_64.h>
#include <linux/mman.h>
#include <linux/prctl.h>
#include <stdint.h>
#include <string.h>

extern "C" {
#include "mrr/trace.h"
#include "syscalls/table.h"
struct replayer;
void describe_event(struct replayer *rp, const struct mrr_event *ev, char *buf,
		    size_t buflen);
}

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

TEST(DescribeEvent, EveryKindIsNamed)
{
	for (uint32_t kind = 1; kind <= MRR_EV_KIND_MAX; kind++) {
		struct mrr_event ev;
		char buf[256];

		memset(&ev, 0, sizeof(ev));
		ev.kind = kind;
		ev.seq = 7;
		ev.tid = 42;
		describe_event(nullptr, &ev, buf, sizeof(buf));
		EXPECT_EQ(strstr(buf, "kind"), nullptr) << buf;
		EXPECT_NE(strstr(buf, "event 7 pid 42: "), nullptr) << buf;
	}
}

TEST(DescribeEvent, BufferFlushAndMrrCalls)
{
	struct mrr_event ev;
	char buf[256];

	memset(&ev, 0, sizeof(ev));
	ev.kind = MRR_EV_BUFFER;
	ev.args[0] = 4096;
	ev.args[1] = 26;
	describe_event(nullptr, &ev, buf, sizeof(buf));
	EXPECT_NE(strstr(buf, "26 buffered calls"), nullptr) << buf;

	ev.kind = MRR_EV_SYSCALL;
	ev.nr = 0x6d7201; // MRR_SYSCALL_FLUSH
	describe_event(nullptr, &ev, buf, sizeof(buf));
	EXPECT_NE(strstr(buf, "mrr_buffer_flush("), nullptr) << buf;
	ev.nr = -1;
	ev.result = -38;
	describe_event(nullptr, &ev, buf, sizeof(buf));
	EXPECT_NE(strstr(buf, "syscall_-1("), nullptr) << buf;
	EXPECT_NE(strstr(buf, "ENOSYS"), nullptr) << buf;
}

TEST(ArgsUsed, PrctlByOption)
{
	uint64_t a[6] = {PR_SET_NAME, 0x1000, ~0ull, ~0ull, ~0ull, ~0ull};

	EXPECT_EQ(mrr_syscall_args_used(__NR_prctl, a), 2);
	a[0] = PR_GET_SECCOMP;
	EXPECT_EQ(mrr_syscall_args_used(__NR_prctl, a), 1);
	a[0] = PR_SET_SECCOMP;
	EXPECT_EQ(mrr_syscall_args_used(__NR_prctl, a), 3);
	// options that insist on zeroes in their unused arguments read them
	a[0] = PR_SET_NO_NEW_PRIVS;
	EXPECT_EQ(mrr_syscall_args_used(__NR_prctl, a), 5);
	a[0] = 0x7fff0000; // unknown: compare all
	EXPECT_EQ(mrr_syscall_args_used(__NR_prctl, a), 5);
}

TEST(ArgsUsed, MremapFifthOnlyWhenRead)
{
	uint64_t a[6] = {0x10000, 4096, 8192, MREMAP_MAYMOVE, 0xdead, 0};

	EXPECT_EQ(mrr_syscall_args_used(__NR_mremap, a), 4);
	a[3] = MREMAP_MAYMOVE | MREMAP_FIXED;
	EXPECT_EQ(mrr_syscall_args_used(__NR_mremap, a), 5);
	// a hint only: the replay moves the mapping where it went at record
	a[3] = MREMAP_MAYMOVE | MREMAP_DONTUNMAP;
	EXPECT_EQ(mrr_syscall_args_used(__NR_mremap, a), 4);
}

TEST(ArgsUsed, FutexByOperation)
{
	uint64_t a[6] = {0x1000, 1 /* FUTEX_WAKE */, 1, ~0ull, ~0ull, ~0ull};

	EXPECT_EQ(mrr_syscall_args_used(__NR_futex, a), 3);
	a[1] = 1 | 128; /* FUTEX_WAKE | FUTEX_PRIVATE_FLAG */
	EXPECT_EQ(mrr_syscall_args_used(__NR_futex, a), 3);
	a[1] = 0 | 128; /* FUTEX_WAIT, private */
	EXPECT_EQ(mrr_syscall_args_used(__NR_futex, a), 4);
	a[1] = 4; /* FUTEX_CMP_REQUEUE reads all six */
	EXPECT_EQ(mrr_syscall_args_used(__NR_futex, a), 6);
	a[1] = 5; /* FUTEX_WAKE_OP */
	EXPECT_EQ(mrr_syscall_args_used(__NR_futex, a), 6);
}

TEST(ArgsUsed, FcntlOpenAndUnknown)
{
	uint64_t a[6] = {3, 3 /* F_GETFL */, 0xdead, 0, 0, 0};

	EXPECT_EQ(mrr_syscall_args_used(__NR_fcntl, a), 2);
	a[1] = 4; // F_SETFL
	EXPECT_EQ(mrr_syscall_args_used(__NR_fcntl, a), 3);
	uint64_t o[6] = {0x1000, 0 /* O_RDONLY */, 0xdead, 0, 0, 0};
	EXPECT_EQ(mrr_syscall_args_used(__NR_open, o), 2);
	o[1] = 0100; // O_CREAT
	EXPECT_EQ(mrr_syscall_args_used(__NR_open, o), 3);
	EXPECT_EQ(mrr_syscall_args_used(-1, a), 0);
	EXPECT_EQ(mrr_syscall_args_used(1000, a), 0);
	EXPECT_EQ(mrr_syscall_args_used(__NR_read, a), 3);
}
