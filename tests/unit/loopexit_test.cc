// Tests for loop_exits_in (src/record/loopexit.c): which loops around a
// preemption point give an exit mrr may count and wait for, and where the
// search must stop. The code is assembled by hand (GNU as, then the bytes).
#include <gtest/gtest.h>

#include <stddef.h>
#include <stdint.h>
#include <vector>

// record/loopexit.h includes nothing C++ cannot read, but the recorder's
// headers around it do: declare what the test uses.
extern "C" {
struct loop_exit {
	uint64_t addr;
	uint64_t lo;
};
int loop_exits_in(const uint8_t *code, size_t len, uint64_t base, uint64_t addr,
		  uint64_t enclose, struct loop_exit *out, int max,
		  int *blocked, bool any);
}

namespace
{

const uint64_t kBase = 0x401000;
const int kLoop = 1;	// LOOPEXIT_LOOP
const int kUnknown = 2; // LOOPEXIT_UNKNOWN

struct Result {
	std::vector<loop_exit> exits;
	int blocked;
};

Result exits_at(const std::vector<uint8_t> &code, uint64_t offset)
{
	loop_exit out[8];
	Result r;

	r.blocked = 0;
	int n = loop_exits_in(code.data(), code.size(), kBase, kBase + offset,
			      kBase + offset, out, 8, &r.blocked, false);
	r.exits.assign(out, out + n);
	return r;
}

// xor %ecx,%ecx; 1: add $1,%rax; add $1,%rcx; cmp $100,%rcx; jne 1b; ret
TEST(LoopExit, CountedLoopGivesItsFallThrough)
{
	std::vector<uint8_t> code = {0x31, 0xc9, 0x48, 0x83, 0xc0, 0x01,
				     0x48, 0x83, 0xc1, 0x01, 0x48, 0x83,
				     0xf9, 0x64, 0x75, 0xf2, 0xc3};
	Result r = exits_at(code, 6); // at add $1,%rcx

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 16, r.exits[0].addr);
	EXPECT_EQ(kBase + 2, r.exits[0].lo);
	EXPECT_EQ(0, r.blocked);
}

// 1: add $1,%rax; mov flag(%rip),%edx; test %edx,%edx; je 1b; ret
TEST(LoopExit, LoopOnAFlagInMemoryBlocks)
{
	std::vector<uint8_t> code = {0x48, 0x83, 0xc0, 0x01, 0x8b,
				     0x15, 0x00, 0x01, 0x00, 0x00,
				     0x85, 0xd2, 0x74, 0xf2, 0xc3};
	Result r = exits_at(code, 4);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// 2: xor %ecx,%ecx; 1: add $1,%rax; add $1,%rcx; cmp $4,%rcx; jne 1b;
// mov flag(%rip),%edx; test %edx,%edx; je 2b; ret
TEST(LoopExit, InnerCountedLoopInsideAFlagLoop)
{
	std::vector<uint8_t> code = {0x31, 0xc9, 0x48, 0x83, 0xc0, 0x01, 0x48,
				     0x83, 0xc1, 0x01, 0x48, 0x83, 0xf9, 0x04,
				     0x75, 0xf2, 0x8b, 0x15, 0x00, 0x01, 0x00,
				     0x00, 0x85, 0xd2, 0x74, 0xe6, 0xc3};
	Result r = exits_at(code, 2);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 16, r.exits[0].addr);
	EXPECT_EQ(kLoop, r.blocked); // nothing outside the flag loop
}

// 1: mov (%rbx),%rbx; test %rbx,%rbx; jne 1b; ret (a list walk)
TEST(LoopExit, ListWalkEndsByItself)
{
	std::vector<uint8_t> code = {0x48, 0x8b, 0x1b, 0x48, 0x85,
				     0xdb, 0x75, 0xf8, 0xc3};
	Result r = exits_at(code, 3);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 8, r.exits[0].addr);
}

// 1: add stride(%rip),%rbx; cmp %rbp,%rbx; jb 1b; ret
TEST(LoopExit, StrideFromMemoryStillSteps)
{
	std::vector<uint8_t> code = {0x48, 0x03, 0x1d, 0x00, 0x01, 0x00, 0x00,
				     0x48, 0x39, 0xeb, 0x72, 0xf4, 0xc3};
	Result r = exits_at(code, 7);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 12, r.exits[0].addr);
}

// 1: add $1,%rax; jmp *%rdx (a PLT entry, a tail call)
TEST(LoopExit, IndirectJumpIsNotFollowed)
{
	std::vector<uint8_t> code = {0x48, 0x83, 0xc0, 0x01, 0xff, 0xe2};
	Result r = exits_at(code, 0);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kUnknown, r.blocked);
}

// 1: add $1,%rax; sub $1,%edi; je 2f; cmp %r11,(%rcx); jne 1b; 2: ret
// (a counter tested in the middle bounds a loop on the word at a fixed
// address, maybe a flag: the bound may be far, so no loop around it serves)
TEST(LoopExit, CounterExitInTheMiddleBlocks)
{
	std::vector<uint8_t> code = {0x48, 0x83, 0xc0, 0x01, 0x83,
				     0xef, 0x01, 0x74, 0x05, 0x4c,
				     0x39, 0x19, 0x75, 0xf2, 0xc3};
	Result r = exits_at(code, 4);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// jmp 3f; 1: and %ebp,%esi; movzwl (%rbx,%rsi,2),%esi; cmp %esi,%r9d;
// jae 2f; sub $1,%edi; je 2f; 3: mov %esi,%ecx; add %r10,%rcx;
// cmp %r11w,-1(%rcx); jne 1b; add $1,%eax; jmp 1b; 2: ret
// (zlib's longest_match: a walk along a hash chain whose head tests the
// next node and a counter, `continue` jumps back to the head, and the
// bottom test compares bytes the chain leads to: the head's target is
// the exit)
TEST(LoopExit, ChainWalkTestedAtItsHeadExitsThere)
{
	std::vector<uint8_t> code = {
		0xeb, 0x10, 0x21, 0xee, 0x0f, 0xb7, 0x34, 0x73, 0x41,
		0x39, 0xf1, 0x73, 0x16, 0x83, 0xef, 0x01, 0x74, 0x11,
		0x89, 0xf1, 0x4c, 0x01, 0xd1, 0x66, 0x44, 0x39, 0x59,
		0xff, 0x75, 0xe4, 0x83, 0xc0, 0x01, 0xeb, 0xdf, 0xc3};
	Result r = exits_at(code, 0x12);

	ASSERT_FALSE(r.exits.empty());
	for (const loop_exit &e : r.exits) {
		EXPECT_EQ(kBase + 0x23, e.addr);
		EXPECT_EQ(kBase + 0x2, e.lo);
	}
	EXPECT_EQ(kLoop, r.blocked); // the jmp back, met twice
}

// jmp 3f; 1: movzwl (%rbx,%rsi,2),%esi; cmp %esi,%r9d; jae 2f; sub $1,%edi;
// je 2f; 3: cmp %r11w,flag(%rip); jne 1b; 2: ret (the same head, but the
// bottom test reads a fixed address: maybe a flag, and the counter's bound
// may be far)
TEST(LoopExit, HeadTestedLoopOnAFixedWordBlocks)
{
	std::vector<uint8_t> code = {
		0xeb, 0x0e, 0x0f, 0xb7, 0x34, 0x73, 0x41, 0x39, 0xf1, 0x73,
		0x0f, 0x83, 0xef, 0x01, 0x74, 0x0a, 0x66, 0x44, 0x39, 0x1d,
		0x03, 0x00, 0x00, 0x00, 0x75, 0xe8, 0xc3, 0x00, 0x00};
	Result r = exits_at(code, 0x10);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// jmp 3f; 1: mulss c(%rip),%xmm0; movzwl (%rbx,%rsi,2),%esi; cmp %esi,%r9d;
// jae 2f; sub $1,%edi; je 2f; 3: mov %esi,%ecx; add %r10,%rcx;
// cmp %r11w,-1(%rcx); jne 1b; 2: ret (a constant at a fixed address read
// into a vector register feeds no branch: no flag, as in stress-ng's
// matrix fill)
TEST(LoopExit, HeadTestedLoopReadingAFloatConstantExits)
{
	std::vector<uint8_t> code = {
		0xeb, 0x16, 0xf3, 0x0f, 0x59, 0x05, 0x1b, 0x00, 0x00, 0x00,
		0x0f, 0xb7, 0x34, 0x73, 0x41, 0x39, 0xf1, 0x73, 0x11, 0x83,
		0xef, 0x01, 0x74, 0x0c, 0x89, 0xf1, 0x4c, 0x01, 0xd1, 0x66,
		0x44, 0x39, 0x59, 0xff, 0x75, 0xde, 0xc3, 0x00, 0x00, 0x00};
	Result r = exits_at(code, 0x18);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 0x24, r.exits[0].addr);
	EXPECT_EQ(kBase + 0x2, r.exits[0].lo);
}

// 1: add $1,%rax; subl $1,0x4(%rsp); jne 1b; ret (a counter kept in a
// stack slot, as stress-ng's l1cache loop over its ways)
TEST(LoopExit, CounterInAStackSlotCounts)
{
	std::vector<uint8_t> code = {0x48, 0x83, 0xc0, 0x01, 0x83, 0x6c,
				     0x24, 0x04, 0x01, 0x75, 0xf5, 0xc3};
	Result r = exits_at(code, 0);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 11, r.exits[0].addr);
	EXPECT_EQ(0, r.blocked);
}

// 1: addl $1,-4(%rbp); cmpl $99,-4(%rbp); jle 1b; ret (unoptimised code:
// the counter lives in the frame and is compared there)
TEST(LoopExit, FrameCounterComparedInMemoryCounts)
{
	std::vector<uint8_t> code = {0x83, 0x45, 0xfc, 0x01, 0x83, 0x7d,
				     0xfc, 0x63, 0x7e, 0xf6, 0xc3};
	Result r = exits_at(code, 0);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 10, r.exits[0].addr);
}

// 1: movl $5,0x4(%rsp); subl $1,0x4(%rsp); jne 1b; ret (the slot is set
// anew each turn: no counter)
TEST(LoopExit, StackSlotStoredInTheBodyBlocks)
{
	std::vector<uint8_t> code = {0xc7, 0x44, 0x24, 0x04, 0x05, 0x00,
				     0x00, 0x00, 0x83, 0x6c, 0x24, 0x04,
				     0x01, 0x75, 0xf1, 0xc3};
	Result r = exits_at(code, 0);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// 1: push %rax; subl $1,0x4(%rsp); jne 1b; ret (rsp moves every turn: the
// slot is another one each time)
TEST(LoopExit, StackSlotOfAMovingRspBlocks)
{
	std::vector<uint8_t> code = {0x50, 0x83, 0x6c, 0x24, 0x04,
				     0x01, 0x75, 0xf8, 0xc3};
	Result r = exits_at(code, 0);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// movl $100,4(%rsp); 1: cmp $1,%r13d; jne 3f; add $1,%rax;
// 2: subl $1,4(%rsp); jne 1b; ret; 3: add %r13,%rax; cmp %r15,%rax; jb 3b;
// jmp 2b (a block the compiler put after the ret jumps back into its loop,
// as in stress-ng's l1cache)
TEST(LoopExit, OutOfLineBlockFollowsItsJumpBack)
{
	std::vector<uint8_t> code = {
		0xc7, 0x44, 0x24, 0x04, 0x64, 0x00, 0x00, 0x00, 0x41,
		0x83, 0xfd, 0x01, 0x75, 0x0c, 0x48, 0x83, 0xc0, 0x01,
		0x83, 0x6c, 0x24, 0x04, 0x01, 0x75, 0xef, 0xc3, 0x4c,
		0x01, 0xe8, 0x4c, 0x39, 0xf8, 0x72, 0xf8, 0xeb, 0xee};
	Result r = exits_at(code, 0x1d);

	ASSERT_EQ(2u, r.exits.size());
	EXPECT_EQ(kBase + 0x22, r.exits[0].addr);
	EXPECT_EQ(kBase + 0x1a, r.exits[0].lo);
	EXPECT_EQ(kBase + 0x19, r.exits[1].addr);
	EXPECT_EQ(kBase + 0x8, r.exits[1].lo);
	EXPECT_EQ(0, r.blocked);
}

// 1: add $1,%rax; cmp %rdi,%rax; jae 2f; add $1,%rcx; jmp 1b; 2: ret (a loop
// tested at its top: only its middle branch ends it)
TEST(LoopExit, LoopTestedAtItsTopBlocks)
{
	std::vector<uint8_t> code = {0x48, 0x83, 0xc0, 0x01, 0x48, 0x39,
				     0xf8, 0x73, 0x06, 0x48, 0x83, 0xc1,
				     0x01, 0xeb, 0xf1, 0xc3};
	Result r = exits_at(code, 9);

	EXPECT_TRUE(r.exits.empty());
	EXPECT_EQ(kLoop, r.blocked);
}

// 3: xor %ecx,%ecx; 1: add $1,%rcx; cmp $100,%rcx; jne 1b; jmp 3b (a counted
// loop inside one without end)
TEST(LoopExit, EndlessLoopAroundACountedOneBlocks)
{
	std::vector<uint8_t> code = {0x31, 0xc9, 0x48, 0x83, 0xc1, 0x01, 0x48,
				     0x83, 0xf9, 0x64, 0x75, 0xf6, 0xeb, 0xf2};
	Result r = exits_at(code, 2);

	ASSERT_EQ(1u, r.exits.size());
	EXPECT_EQ(kBase + 0xc, r.exits[0].addr);
	EXPECT_EQ(kLoop, r.blocked);
}

} // namespace
