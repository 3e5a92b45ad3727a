// Tests for src/replay/fastsearch.c's trampolines, run in this process:
// small functions are patched as the replay patches a point's code, and
// called. The copy of the patched instructions must compute what the
// original did (rip-relative operands, a jcc that reads flags set before
// the point, a call), and the trap must fire exactly at the calls whose
// compared registers hold the recorded values.
#include <gtest/gtest.h>

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/user.h>
#include <ucontext.h>

extern "C" {
#include "replay/fastsearch.h"
}

namespace
{

constexpr size_t kPage = 4096;

struct Trap {
	uint64_t hit_at, resume_at;
	int hits;
	uint64_t rdi_seen;
};
Trap g_trap;

void OnTrap(int, siginfo_t *, void *ctx)
{
	ucontext_t *uc = static_cast<ucontext_t *>(ctx);
	greg_t *g = uc->uc_mcontext.gregs;

	if ((uint64_t)g[REG_RIP] == g_trap.hit_at) {
		g_trap.hits++;
		g_trap.rdi_seen = (uint64_t)g[REG_RDI];
		g[REG_RIP] = (greg_t)g_trap.resume_at; // not the point: go on
	} else {
		abort();
	}
}

class FastSearch : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		struct sigaction sa;

		mem_ = static_cast<uint8_t *>(mmap(
			nullptr, 3 * kPage, PROT_READ | PROT_WRITE | PROT_EXEC,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		ASSERT_NE(mem_, MAP_FAILED);
		memset(mem_, 0xcc, 3 * kPage);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = OnTrap;
		sa.sa_flags = SA_SIGINFO;
		ASSERT_EQ(sigaction(SIGTRAP, &sa, &old_), 0);
		memset(&g_trap, 0, sizeof(g_trap));
	}
	void TearDown() override
	{
		sigaction(SIGTRAP, &old_, nullptr);
		munmap(mem_, 3 * kPage);
	}
	// Copies code to the first page, patches the point at offset ip_off
	// with a trampoline in the second page comparing rdi with want_rdi
	// (or nothing: every execution traps). False when it cannot.
	bool Patch(const uint8_t *code, size_t n, size_t ip_off,
		   const uint64_t *want_rdi)
	{
		uint64_t regs[27] = {0};
		uint64_t mask = 1ull << 16; // rip only
		const uint64_t ip = (uint64_t)mem_ + ip_off;
		const uint64_t tramp = (uint64_t)mem_ + kPage;
		const char *why = nullptr;

		memcpy(mem_, code, n);
		if (want_rdi) {
			regs[14] = *want_rdi;
			mask |= 1ull << 14;
		}
		regs[16] = ip;
		if (fastsearch_build(mem_ + ip_off, 64, ip, tramp, regs, mask,
				     &fc_, &why) != 0) {
			why_ = why ? why : "";
			return false;
		}
		memcpy(mem_ + kPage, fc_.bytes, fc_.len);
		memcpy(mem_ + ip_off, fc_.patch, fc_.window);
		g_trap.hit_at = tramp + fc_.hit;
		g_trap.resume_at = tramp + fc_.resume;
		return true;
	}
	uint64_t Call(uint64_t arg)
	{
		auto f = reinterpret_cast<uint64_t (*)(uint64_t)>(mem_);

		return f(arg);
	}

	uint8_t *mem_ = nullptr;
	struct sigaction old_;
	struct fastsearch_code fc_;
	std::string why_;
};

TEST_F(FastSearch, RipRelativeLoadAndRegisterFilter)
{
	// lea rax, [rip + 0x20]; mov rax, [rax + rdi*8]; ret; data at +0x27
	uint8_t code[0x27 + 24] = {0x48, 0x8d, 0x05, 0x20, 0x00, 0x00,
				   0x00, 0x48, 0x8b, 0x04, 0xf8, 0xc3};
	const uint64_t data[3] = {111, 222, 333};
	const uint64_t want = 1;

	memcpy(code + 0x27, data, sizeof(data));
	ASSERT_TRUE(Patch(code, sizeof(code), 0, &want)) << why_;
	EXPECT_EQ(fc_.window, 7u); // the lea alone covers the jump
	EXPECT_EQ(Call(0), 111u);
	EXPECT_EQ(g_trap.hits, 0);
	EXPECT_EQ(Call(1), 222u);
	EXPECT_EQ(g_trap.hits, 1);
	EXPECT_EQ(g_trap.rdi_seen, 1u);
	EXPECT_EQ(Call(2), 333u);
	EXPECT_EQ(g_trap.hits, 1);
}

// The trampoline writes nothing in the program's memory: a frame's bytes
// below the stack pointer outlive the search in the stacks of later
// points (pushing the flags below the red zone made stress-ng judy's
// replay miss a point). The patched function runs on a stack of its own,
// filled with a pattern that must be intact after it, but for the return
// address.
TEST_F(FastSearch, WritesNothingBelowTheStackPointer)
{
	// lea rax, [rip + 0x20]; mov rax, [rax + rdi*8]; ret
	uint8_t code[0x27 + 8] = {0x48, 0x8d, 0x05, 0x20, 0x00, 0x00,
				  0x00, 0x48, 0x8b, 0x04, 0xf8, 0xc3};
	// push rbp; mov rbp, rsp; mov rsp, rdx; mov rax, rdi; mov rdi, rsi;
	// call rax; mov rsp, rbp; pop rbp; ret
	static const uint8_t on_stack[] = {
		0x55, 0x48, 0x89, 0xe5, 0x48, 0x89, 0xd4, 0x48, 0x89, 0xf8,
		0x48, 0x89, 0xf7, 0xff, 0xd0, 0x48, 0x89, 0xec, 0x5d, 0xc3};
	static uint8_t stack[8192] __attribute__((aligned(16)));
	const uint64_t data = 77, never = 12345;

	memcpy(code + 0x27, &data, sizeof(data));
	ASSERT_TRUE(Patch(code, sizeof(code), 0, &never)) << why_;
	memcpy(mem_ + 2048, on_stack, sizeof(on_stack));
	memset(stack, 0x5a, sizeof(stack));
	auto run = reinterpret_cast<uint64_t (*)(void *, uint64_t, void *)>(
		mem_ + 2048);
	EXPECT_EQ(run(mem_, 0, stack + sizeof(stack)), 77u);
	EXPECT_EQ(g_trap.hits, 0);
	for (size_t i = 0; i < sizeof(stack) - 8; i++)
		ASSERT_EQ(stack[i], 0x5a) << "byte " << sizeof(stack) - i
					  << " below the stack's top";
}

TEST_F(FastSearch, JccKeepsTheFlagsSetBeforeThePoint)
{
	// test rdi, rdi; [point] je +7; mov eax, 1 (as mov rax); ret;
	// mov rax, 2; ret. The trampoline's compare must not change the
	// flags that the je reads.
	const uint8_t code[] = {0x48, 0x85, 0xff, // test
				0x74, 0x08,	  // je
				0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00, // mov
				0xc3,					  // ret
				0x48, 0xc7, 0xc0, 0x02, 0x00, 0x00, 0x00, // mov
				0xc3};
	const uint64_t want = 7;

	ASSERT_TRUE(Patch(code, sizeof(code), 3, &want)) << why_;
	EXPECT_EQ(Call(0), 2u);
	EXPECT_EQ(Call(5), 1u);
	EXPECT_EQ(Call(7), 1u);
	EXPECT_EQ(g_trap.hits, 1);
	EXPECT_EQ(Call(0), 2u);
	EXPECT_EQ(g_trap.hits, 1);
}

TEST_F(FastSearch, CallPushesTheOriginalReturnAddress)
{
	// [point] call +1 (to the mov); ret; mov rax, [rsp] (its return
	// address); ret. Every execution traps (no register compared).
	const uint8_t code[] = {0xe8, 0x01, 0x00, 0x00, 0x00,  // call
				0xc3,			       // ret
				0x48, 0x8b, 0x04, 0x24, 0xc3}; // mov; ret

	ASSERT_TRUE(Patch(code, sizeof(code), 0, nullptr)) << why_;
	EXPECT_EQ(Call(3), (uint64_t)mem_ + 5);
	EXPECT_EQ(g_trap.hits, 1);
}

TEST_F(FastSearch, ReturnFollowedByPaddingIsCovered)
{
	// mov rax, rdi; [point] add rax, rax; ret; then the int3 padding
	// before the next 16-byte boundary: the patch covers the padding,
	// and the copy returns by itself
	const uint8_t code[] = {0x48, 0x89, 0xf8, 0x48, 0x01, 0xc0, 0xc3};
	const uint64_t want = 21;

	ASSERT_TRUE(Patch(code, sizeof(code), 3, &want)) << why_;
	EXPECT_EQ(fc_.window, 5u);
	EXPECT_EQ(Call(4), 8u);
	EXPECT_EQ(Call(21), 42u);
	EXPECT_EQ(g_trap.hits, 1);
}

TEST_F(FastSearch, RefusesWhatCannotRunElsewhere)
{
	const uint8_t syscall_insn[] = {0x0f, 0x05, 0xc3, 0x90, 0x90, 0x90};
	// a return, then code that may be jumped to
	const uint8_t ret_then_code[] = {0x48, 0x01, 0xf0, 0xc3,
					 0x48, 0x89, 0xc0};
	// a return that ends at a 16-byte boundary, where a function may
	// start with a nop
	uint8_t ret_at_boundary[20];

	memset(ret_at_boundary, 0x90, sizeof(ret_at_boundary));
	memcpy(ret_at_boundary + 12, "\x48\x01\xf0\xc3", 4);
	EXPECT_FALSE(Patch(syscall_insn, sizeof(syscall_insn), 0, nullptr));
	EXPECT_FALSE(Patch(ret_then_code, sizeof(ret_then_code), 0, nullptr));
	EXPECT_FALSE(
		Patch(ret_at_boundary, sizeof(ret_at_boundary), 12, nullptr));
}

TEST_F(FastSearch, StopMapsTheTrapBackToThePoint)
{
	uint8_t code[32];
	struct fastsearch f;
	struct user_regs_struct r;

	memset(code, 0x90, sizeof(code)); // nops: each its own instruction
	ASSERT_TRUE(Patch(code, sizeof(code), 0, nullptr)) << why_;
	EXPECT_EQ(fc_.window, 5u);
	memset(&f, 0, sizeof(f));
	f.ip = (uint64_t)mem_;
	f.page = (uint64_t)mem_ + kPage;
	f.code = fc_;
	memset(&r, 0, sizeof(r));
	r.rip = g_trap.hit_at;
	r.rdi = 99;
	EXPECT_EQ(fastsearch_stop(&f, &r), 1);
	EXPECT_EQ(r.rip, f.ip);
	EXPECT_EQ(r.rdi, 99u);
	r.rip = f.ip + 1; // a trap anywhere else is not the search's
	EXPECT_EQ(fastsearch_stop(&f, &r), 0);
	EXPECT_EQ(fastsearch_resume_at(&f), f.page + fc_.resume);
}

} // namespace

namespace
{

// A loop whose head comes right after the point's instruction: the patch
// would cover the head, and the loop's jump back would land in its
// displacement (stress-ng sparsematrix diverged so).
TEST(FastSearchJumps, LoopHeadInsideThePatch)
{
	// ip: mov eax, [rdi] (2 bytes: 8b 07); head: add eax, 1 (83 c0 01);
	// cmp eax, esi (39 f0); jb head (72 f9); ret
	const uint8_t code[] = {0x8b, 0x07, 0x83, 0xc0, 0x01,
				0x39, 0xf0, 0x72, 0xf9, 0xc3};
	const uint64_t base = 0x401000;

	EXPECT_TRUE(fastsearch_jumps_into(code, sizeof(code), base, base, 5));
	// with the point at the head itself, the jump lands on ip: fine
	EXPECT_FALSE(
		fastsearch_jumps_into(code, sizeof(code), base, base + 2, 5));
}

TEST(FastSearchJumps, JumpFromBeforeIntoThePatch)
{
	// jmp +1 (eb 01, to ip + 1); [ip] nop; nop; mov eax, 1 (b8 01 00 00
	// 00); ret
	const uint8_t code[] = {0xeb, 0x01, 0x90, 0x90, 0xb8,
				0x01, 0x00, 0x00, 0x00, 0xc3};
	const uint64_t base = 0x401000;

	// jmp at base lands at base + 3: inside (base + 2, base + 2 + 7)
	EXPECT_TRUE(
		fastsearch_jumps_into(code, sizeof(code), base, base + 2, 7));
	EXPECT_FALSE(
		fastsearch_jumps_into(code, sizeof(code), base, base + 3, 6));
}

TEST(FastSearchJumps, StraightCodeHasNone)
{
	uint8_t code[64];

	memset(code, 0x90, sizeof(code));
	EXPECT_FALSE(fastsearch_jumps_into(code, sizeof(code), 0x401000,
					   0x401010, 5));
	// ip outside the bytes given: cannot tell
	EXPECT_TRUE(fastsearch_jumps_into(code, sizeof(code), 0x401000,
					  0x402000, 5));
}

} // namespace
