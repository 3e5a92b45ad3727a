// Tests for src/core/hwbp.c: execute breakpoints and write/rw watchpoints
// in the debug registers of a traced child, and DR6.
#include <gtest/gtest.h>

#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "core/hwbp.h"
}

namespace
{

volatile uint64_t g_word;
volatile uint32_t g_half[2];
int g_calls;

extern "C" __attribute__((noinline)) void hwbp_target(int i)
{
	g_calls += i;
	__asm__ volatile("" ::: "memory");
}

// The child: stops itself, calls hwbp_target 3 times, writes g_word, reads
// g_half[1], writes g_half[0], and exits with g_calls.
pid_t StartChild()
{
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
		raise(SIGSTOP);
		for (int i = 1; i <= 3; i++)
			hwbp_target(i);
		g_word = 42;
		uint32_t v = g_half[1];
		g_half[0] = v + 1;
		_exit(g_calls);
	}
	int status;
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	return pid;
}

// Resumes the child; returns the signal of its next stop (0 if it exited).
int ContStop(pid_t pid, int *exit_code = nullptr)
{
	int status;
	EXPECT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	if (WIFEXITED(status)) {
		if (exit_code)
			*exit_code = WEXITSTATUS(status);
		return 0;
	}
	return WSTOPSIG(status);
}

uint64_t Rip(pid_t pid)
{
	struct user_regs_struct r;
	EXPECT_EQ(0, ptrace(PTRACE_GETREGS, pid, nullptr, &r));
	return r.rip;
}

TEST(Hwbp, ExecuteBreakpointStopsBeforeEachCall)
{
	pid_t pid = StartChild();
	ASSERT_EQ(0, hwbp_set(pid, 2, (uint64_t)(uintptr_t)&hwbp_target,
			      HWBP_EXEC, 1));
	for (int hit = 0; hit < 3; hit++) {
		ASSERT_EQ(0, hwbp_clear_dr6(pid));
		ASSERT_EQ(SIGTRAP, ContStop(pid));
		EXPECT_EQ((uint64_t)(uintptr_t)&hwbp_target, Rip(pid));
		uint64_t dr6 = 0;
		ASSERT_EQ(0, hwbp_read_dr6(pid, &dr6));
		EXPECT_EQ(2, hwbp_fired_slot(dr6));
	}
	ASSERT_EQ(0, hwbp_clear(pid, 2));
	int code = -1;
	EXPECT_EQ(0, ContStop(pid, &code));
	EXPECT_EQ(6, code);
}

TEST(Hwbp, WriteWatchpointStopsAfterTheWrite)
{
	pid_t pid = StartChild();
	ASSERT_EQ(0, hwbp_set(pid, 0, (uint64_t)(uintptr_t)&g_word, HWBP_WRITE,
			      8));
	ASSERT_EQ(0, hwbp_clear_dr6(pid));
	ASSERT_EQ(SIGTRAP, ContStop(pid));
	errno = 0;
	long v = ptrace(PTRACE_PEEKDATA, pid, (void *)&g_word, nullptr);
	EXPECT_EQ(42, v);
	uint64_t dr6 = 0;
	ASSERT_EQ(0, hwbp_read_dr6(pid, &dr6));
	EXPECT_EQ(0, hwbp_fired_slot(dr6));
	ASSERT_EQ(0, hwbp_clear_all(pid));
	int code = -1;
	EXPECT_EQ(0, ContStop(pid, &code));
	EXPECT_EQ(6, code);
}

TEST(Hwbp, ReadWriteWatchpointSeesTheRead)
{
	pid_t pid = StartChild();
	// A write-only watchpoint on g_half[1] must not fire on its read; the
	// rw one in another slot does, once.
	ASSERT_EQ(0, hwbp_set(pid, 1, (uint64_t)(uintptr_t)&g_half[1],
			      HWBP_WRITE, 4));
	ASSERT_EQ(0, hwbp_set(pid, 3, (uint64_t)(uintptr_t)&g_half[1], HWBP_RW,
			      4));
	ASSERT_EQ(0, hwbp_clear_dr6(pid));
	ASSERT_EQ(SIGTRAP, ContStop(pid));
	uint64_t dr6 = 0;
	ASSERT_EQ(0, hwbp_read_dr6(pid, &dr6));
	EXPECT_EQ(3, hwbp_fired_slot(dr6));
	EXPECT_FALSE(dr6 & 2);
	int code = -1;
	EXPECT_EQ(0, ContStop(pid, &code));
	EXPECT_EQ(6, code);
}

TEST(Hwbp, RefusesBadArguments)
{
	pid_t pid = StartChild();
	uint64_t a = (uint64_t)(uintptr_t)&g_word;
	EXPECT_EQ(-EINVAL, hwbp_set(pid, 4, a, HWBP_EXEC, 1));
	EXPECT_EQ(-EINVAL, hwbp_set(pid, -1, a, HWBP_EXEC, 1));
	EXPECT_EQ(-EINVAL, hwbp_set(pid, 0, a, HWBP_EXEC, 8));
	EXPECT_EQ(-EINVAL, hwbp_set(pid, 0, a, HWBP_WRITE, 3));
	EXPECT_EQ(-EINVAL, hwbp_set(pid, 0, a + 2, HWBP_WRITE, 4));
	EXPECT_EQ(-EINVAL, hwbp_clear(pid, 7));
	// Re-arming a slot with another kind and length works.
	EXPECT_EQ(0, hwbp_set(pid, 0, a, HWBP_WRITE, 8));
	EXPECT_EQ(0, hwbp_set(pid, 0, (uint64_t)(uintptr_t)&hwbp_target,
			      HWBP_EXEC, 1));
	EXPECT_EQ(0, hwbp_clear_all(pid));
	EXPECT_EQ(-1, hwbp_fired_slot(0));
	int code = -1;
	EXPECT_EQ(0, ContStop(pid, &code));
	EXPECT_EQ(6, code);
}

} // namespace
