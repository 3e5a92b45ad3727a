/* mrr_backtrace() on a child stopped inside known functions: the frames
 * must name them, innermost first, and the output must respect the buffer
 * it is given. */
#include <gtest/gtest.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

extern "C" {
#include "record/backtrace.h"
}

extern "C" __attribute__((noinline)) void mrr_test_stop_here(void)
{
	raise(SIGSTOP);
	asm volatile("" ::: "memory"); /* no tail call: keep this frame */
}

extern "C" __attribute__((noinline)) void mrr_test_caller(void)
{
	mrr_test_stop_here();
	asm volatile("" ::: "memory");
}

namespace
{

/* A child traced by this process, stopped by its own SIGSTOP inside
 * mrr_test_stop_here(). */
class StoppedChild : public ::testing::Test
{
      protected:
	pid_t pid = -1;

	void SetUp() override
	{
		int status;

		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			ptrace(PTRACE_TRACEME, 0, 0, 0);
			mrr_test_caller();
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSTOPPED(status));
		ASSERT_EQ(SIGSTOP, WSTOPSIG(status));
	}

	void TearDown() override
	{
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, nullptr, 0);
		}
	}
};

std::vector<std::string> lines(const char *s)
{
	std::vector<std::string> v;
	const char *nl;

	while ((nl = strchr(s, '\n')) != nullptr) {
		v.emplace_back(s, nl);
		s = nl + 1;
	}
	EXPECT_EQ('\0', *s) << "output does not end with a newline";
	return v;
}

TEST_F(StoppedChild, NamesTheFunctionsOnTheStack)
{
	char buf[8192];
	int n = mrr_backtrace(pid, buf, sizeof(buf));

	ASSERT_GT(n, 2) << buf;
	std::vector<std::string> frames = lines(buf);
	ASSERT_EQ((size_t)n, frames.size());
	ASSERT_LE(n, MRR_BACKTRACE_MAX_FRAMES);

	/* stop_here must come before caller, and both must be there */
	size_t stop = frames.size(), caller = frames.size();
	for (size_t i = 0; i < frames.size(); i++) {
		if (stop == frames.size() &&
		    frames[i].find(" mrr_test_stop_here+0x") !=
			    std::string::npos)
			stop = i;
		if (caller == frames.size() &&
		    frames[i].find(" mrr_test_caller+0x") != std::string::npos)
			caller = i;
	}
	ASSERT_LT(stop, frames.size()) << buf;
	ASSERT_LT(caller, frames.size()) << buf;
	EXPECT_LT(stop, caller) << buf;

	/* every frame: "0xADDR SYMBOL... (FILE)"; ours are in this binary */
	for (const std::string &f : frames) {
		EXPECT_EQ(0u, f.find("0x")) << f;
		EXPECT_EQ(')', f.back()) << f;
		EXPECT_NE(std::string::npos, f.find(" (")) << f;
	}
	EXPECT_NE(std::string::npos, frames[stop].find("dump_backtrace_test"))
		<< frames[stop];

	/* the task stays stopped and traced: a second unwind agrees */
	char again[8192];
	ASSERT_EQ(n, mrr_backtrace(pid, again, sizeof(again)));
	EXPECT_STREQ(buf, again);
}

TEST_F(StoppedChild, KeepsWholeFramesInASmallBuffer)
{
	char full[8192], small[120];
	int n = mrr_backtrace(pid, full, sizeof(full));
	ASSERT_GT(n, 1);

	memset(small, 'x', sizeof(small));
	int k = mrr_backtrace(pid, small, sizeof(small));
	ASSERT_GE(k, 0);
	ASSERT_LT(k, n);
	ASSERT_LT(strlen(small), sizeof(small));
	/* a prefix of whole lines of the full backtrace */
	EXPECT_EQ(0, strncmp(full, small, strlen(small)));
	EXPECT_EQ((size_t)k, lines(small).size());

	char none[1] = {'x'};
	EXPECT_EQ(0, mrr_backtrace(pid, none, sizeof(none)));
	EXPECT_EQ('\0', none[0]);
}

TEST(Backtrace, RefusesATaskThatIsNotTraced)
{
	char buf[256];
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	int ret = mrr_backtrace(pid, buf, sizeof(buf));
	kill(pid, SIGKILL);
	waitpid(pid, nullptr, 0);
	EXPECT_LT(ret, 0);
	EXPECT_STREQ("", buf);
}

} // namespace
