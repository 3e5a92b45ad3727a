// Tests for mem_digest's file namer (src/core/memdigest.c): a task that
// stands in a copy of the syscall buffer library, which a replay maps under
// another name, has its stack left out of the digest, as at record, once
// the namer gives the copy the library's recorded path.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

extern "C" {
#include "core/memdigest.h"
}

namespace
{

std::string g_copy; // the library's "copy": a file of `jmp .`

const char *namer(void *ctx, const char *path)
{
	(void)ctx;
	return g_copy == path ? "/opt/mrr/lib/mrr/libmrr_preload.so" : nullptr;
}

uint64_t digest_of(pid_t pid)
{
	struct mem_digest_task task = {};
	struct mem_digest d = {};

	task.tid = pid;
	EXPECT_EQ(mem_digest(&task, 1, MEM_DIGEST_LIB_WHOLE_STACK, nullptr, &d),
		  0);
	return d.hash;
}

class MemDigestNamer : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		char dir[] = "/tmp/mrr-digest-XXXXXX";
		ASSERT_NE(mkdtemp(dir), nullptr);
		dir_ = dir;
		g_copy = dir_ + "/file-1";
		int fd = open(g_copy.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0700);
		ASSERT_GE(fd, 0);
		unsigned char page[4096];
		for (size_t i = 0; i < sizeof(page); i += 2) {
			page[i] = 0xeb; // jmp .
			page[i + 1] = 0xfe;
		}
		ASSERT_EQ(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
		close(fd);
	}
	void TearDown() override
	{
		mem_digest_set_file_namer(nullptr, nullptr);
		if (child_ > 0) {
			kill(child_, SIGKILL);
			waitpid(child_, nullptr, 0);
		}
		unlink(g_copy.c_str());
		rmdir(dir_.c_str());
	}

	// Starts a child that spins in the copy's code, and stops it there.
	void start_child(struct user_regs_struct *regs)
	{
		int fd = open(g_copy.c_str(), O_RDONLY);
		ASSERT_GE(fd, 0);
		void *code = mmap(nullptr, 4096, PROT_READ | PROT_EXEC,
				  MAP_PRIVATE, fd, 0);
		close(fd);
		ASSERT_NE(code, MAP_FAILED);
		child_ = fork();
		ASSERT_GE(child_, 0);
		if (child_ == 0) {
			volatile char frame[256];
			memset((char *)frame, 0x5a, sizeof(frame));
			((void (*)(void))code)();
			_exit(1);
		}
		munmap(code, 4096);
		ASSERT_EQ(ptrace(PTRACE_SEIZE, child_, 0, 0), 0);
		for (int tries = 0; tries < 500; tries++) {
			int status;
			ASSERT_EQ(ptrace(PTRACE_INTERRUPT, child_, 0, 0), 0);
			ASSERT_EQ(waitpid(child_, &status, 0), child_);
			ASSERT_EQ(ptrace(PTRACE_GETREGS, child_, 0, regs), 0);
			if (regs->rip >= (uint64_t)code &&
			    regs->rip < (uint64_t)code + 4096)
				return;
			ASSERT_EQ(ptrace(PTRACE_CONT, child_, 0, 0), 0);
			usleep(2000);
		}
		FAIL() << "the child never reached the copy's code";
	}

	// Changes a word of the child's stack a page above its stack
	// pointer (the page that holds it is left out as below it).
	void poke_stack(const struct user_regs_struct &regs, long value)
	{
		uint64_t at = ((regs.rsp + 4096) & ~4095ull) + 64;
		ASSERT_EQ(ptrace(PTRACE_POKEDATA, child_, at, value), 0);
	}

	std::string dir_;
	pid_t child_ = -1;
};

TEST_F(MemDigestNamer, StackOfATaskInTheNamedCopyIsLeftOut)
{
	struct user_regs_struct regs;

	start_child(&regs);
	mem_digest_set_file_namer(namer, nullptr);
	uint64_t before = digest_of(child_);
	poke_stack(regs, 0x1111);
	EXPECT_EQ(digest_of(child_), before)
		<< "a stack word of a task in the library's copy was hashed";
}

TEST_F(MemDigestNamer, StackOfATaskInUnnamedCodeIsHashed)
{
	struct user_regs_struct regs;

	start_child(&regs);
	uint64_t before = digest_of(child_);
	poke_stack(regs, 0x2222);
	EXPECT_NE(digest_of(child_), before)
		<< "without the namer, the copy is not the library: its "
		   "task's stack must be hashed";
}

} // namespace
