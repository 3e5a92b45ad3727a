// Tests for src/core/bpcount.c: perf breakpoint counters count executions
// of an instruction without stopping the task, and stop it exactly at the
// N-th one; the CPU-time slice stops a computing task.
#include <gtest/gtest.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "core/bpcount.h"
}

namespace
{

volatile long g_calls;

extern "C" __attribute__((noinline)) void bpcount_target(void)
{
	g_calls = g_calls + 1;
	__asm__ volatile("" ::: "memory");
}

// A traced child, stopped: calls bpcount_target `calls` times (forever if
// calls < 0), then exits with status 7.
pid_t StartChild(long calls)
{
	pid_t pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
		raise(SIGSTOP);
		for (long i = 0; calls < 0 || i < calls; i++)
			bpcount_target();
		_exit(7);
	}
	int status;
	EXPECT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSTOPPED(status));
	return pid;
}

bool Skip(int err)
{
	// perf_event_open refused (no breakpoint PMU, paranoid 3, seccomp)
	return err == -EACCES || err == -EPERM || err == -ENOENT ||
	       err == -ENODEV || err == -EOPNOTSUPP || err == -ENOSYS;
}

TEST(Bpcount, CountsWithoutStopping)
{
	pid_t pid = StartChild(1000);
	struct bpcount c = {-1, 0};
	int err =
		bpcount_open(&c, pid, (uint64_t)(uintptr_t)&bpcount_target, 0);
	if (Skip(err)) {
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		GTEST_SKIP() << "perf_event_open refused: " << strerror(-err);
	}
	ASSERT_EQ(0, err);
	int status;
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) << "stopped: 0x" << std::hex << status;
	EXPECT_EQ(7, WEXITSTATUS(status));
	uint64_t n = 0;
	ASSERT_EQ(0, bpcount_read(&c, &n));
	EXPECT_EQ(1000u, n);
	ASSERT_EQ(0, bpcount_reset(&c));
	ASSERT_EQ(0, bpcount_read(&c, &n));
	EXPECT_EQ(0u, n);
	bpcount_close(&c);
	EXPECT_EQ(-1, c.fd);
}

TEST(Bpcount, StopsBeforeTheNthExecution)
{
	pid_t pid = StartChild(-1);
	struct bpcount c = {-1, 0};
	const uint64_t target = (uint64_t)(uintptr_t)&bpcount_target;
	int err = bpcount_open(&c, pid, target, 37);
	if (Skip(err)) {
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		GTEST_SKIP() << "perf_event_open refused: " << strerror(-err);
	}
	ASSERT_EQ(0, err);
	int status;
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(BPCOUNT_SIGNAL, WSTOPSIG(status));
	siginfo_t si;
	ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si));
	EXPECT_TRUE(bpcount_is_overflow(&si, c.fd));
	EXPECT_FALSE(bpcount_is_overflow(&si, c.fd + 1));
	struct user_regs_struct r;
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, nullptr, &r));
	EXPECT_EQ(target, r.rip);
	errno = 0;
	long calls = ptrace(PTRACE_PEEKDATA, pid, (void *)&g_calls, nullptr);
	EXPECT_EQ(36, calls); // the 37th has not run yet
	uint64_t n = 0;
	ASSERT_EQ(0, bpcount_read(&c, &n));
	EXPECT_EQ(37u, n);
	bpcount_close(&c);
	kill(pid, SIGKILL);
	waitpid(pid, nullptr, 0);
}

TEST(Bpcount, SliceStopsAComputingTask)
{
	pid_t pid = StartChild(-1);
	int fd = -1;
	int err = cpuslice_open(&fd, pid);
	if (Skip(err)) {
		kill(pid, SIGKILL);
		waitpid(pid, nullptr, 0);
		GTEST_SKIP() << "perf_event_open refused: " << strerror(-err);
	}
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, cpuslice_arm(fd, 200000));
	int status;
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(BPCOUNT_SIGNAL, WSTOPSIG(status));
	siginfo_t si;
	ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, nullptr, &si));
	EXPECT_TRUE(bpcount_is_overflow(&si, fd));
	ASSERT_EQ(0, cpuslice_disarm(fd));
	close(fd);
	kill(pid, SIGKILL);
	waitpid(pid, nullptr, 0);
}

} // namespace
