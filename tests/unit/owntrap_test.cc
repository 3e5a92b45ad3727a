// Tests for src/core/owntrap.c: a SIGTRAP with si_code TRAP_BRKPT at an
// address where mrr armed an execute breakpoint is mrr's (a debug
// exception whose DR6 read 0, which the kernel took for an icebp), also
// after the breakpoint's close; nothing else is.
#include <gtest/gtest.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "core/bpcount.h"
#include "core/owntrap.h"
}

namespace
{

siginfo_t Trap(int code, uint64_t addr)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = code;
	si.si_addr = (void *)(uintptr_t)addr;
	return si;
}

TEST(Owntrap, ArmedAndLatelyDisarmedAddressesAreMrrs)
{
	const pid_t tid = 990001;
	const uint64_t a = 0x401000, b = 0x402000;
	siginfo_t si = Trap(TRAP_BRKPT, a);

	EXPECT_FALSE(owntrap_lost(&si, tid, a));
	owntrap_armed(tid, a);
	EXPECT_TRUE(owntrap_lost(&si, tid, a));
	// another task, another address, the trap not at rip, another code
	EXPECT_FALSE(owntrap_lost(&si, tid + 1, a));
	siginfo_t sb = Trap(TRAP_BRKPT, b);
	EXPECT_FALSE(owntrap_lost(&sb, tid, b));
	EXPECT_FALSE(owntrap_lost(&si, tid, a + 1));
	siginfo_t k = Trap(SI_KERNEL, a); // an int3
	EXPECT_FALSE(owntrap_lost(&k, tid, a));
	siginfo_t u = Trap(SI_USER, a);
	EXPECT_FALSE(owntrap_lost(&u, tid, a));
	// a trap seen after the close is still mrr's
	owntrap_disarmed(tid, a);
	EXPECT_TRUE(owntrap_lost(&si, tid, a));
}

TEST(Owntrap, ArmedOnesOutliveManyClosedOnes)
{
	const pid_t tid = 990002;
	const uint64_t live = 0x500000;

	owntrap_armed(tid, live);
	for (uint64_t i = 0; i < 5000; i++) {
		owntrap_armed(tid + 1, 0x600000 + i);
		owntrap_disarmed(tid + 1, 0x600000 + i);
	}
	EXPECT_TRUE(owntrap_known(tid, live));
	EXPECT_TRUE(owntrap_known(tid + 1, 0x600000 + 4999));
	EXPECT_FALSE(owntrap_known(tid + 1, 0x600000));
	owntrap_disarmed(tid, live);
}

// The kernel's side: an int1 (icebp) right before a counted instruction
// raises what a lost-cause exception of the counter raises, SIGTRAP
// TRAP_BRKPT with si_addr = rip = the counted address; resumed without the
// signal, the instruction runs and is counted. (Here the int1 is the
// program's own, which mrr cannot tell apart: owntrap.h.)
extern "C" void owntrap_counted(void);
__asm__(".text\n"
	"owntrap_icebp:\n"
	"	.byte 0xf1\n"
	".globl owntrap_counted\n"
	"owntrap_counted:\n"
	"	nop\n"
	"	ret\n");
extern "C" void owntrap_icebp(void);

TEST(Owntrap, IcebpBeforeACounterLooksLikeALostException)
{
	const uint64_t at = (uint64_t)(uintptr_t)&owntrap_counted;
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
		raise(SIGSTOP);
		owntrap_icebp();
		_exit(7);
	}
	int status;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	struct bpcount c = {-1, 0, 0};
	int err = bpcount_open(&c, pid, at, 0);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		GTEST_SKIP() << "perf_event_open refused: " << strerror(-err);
	}
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status)) << std::hex << status;
	ASSERT_EQ(SIGTRAP, WSTOPSIG(status));
	siginfo_t si;
	struct user_regs_struct r;
	ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, nullptr, &r));
	EXPECT_EQ(TRAP_BRKPT, si.si_code);
	EXPECT_EQ(at, r.rip);
	EXPECT_TRUE(owntrap_lost(&si, pid, r.rip));
	uint64_t n = 1;
	ASSERT_EQ(0, bpcount_read(&c, &n));
	EXPECT_EQ(0u, n);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) << std::hex << status;
	EXPECT_EQ(7, WEXITSTATUS(status));
	ASSERT_EQ(0, bpcount_read(&c, &n));
	EXPECT_EQ(1u, n);
	bpcount_close(&c);
	EXPECT_TRUE(owntrap_lost(&si, pid, r.rip)); // after the close too
}

} // namespace
