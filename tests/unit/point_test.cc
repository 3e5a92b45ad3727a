// Tests for point_rep_string_len (src/core/point.c): which instructions a
// preemption point must never stop inside.
#include <gtest/gtest.h>

#include <stddef.h>
#include <stdint.h>
#include <vector>

// core/point.h includes tracee.h, which C++ cannot read (_Atomic).
extern "C" unsigned point_rep_string_len(const uint8_t *code, size_t n);

namespace
{

unsigned len_of(std::initializer_list<uint8_t> bytes)
{
	std::vector<uint8_t> v(bytes);

	return point_rep_string_len(v.data(), v.size());
}

TEST(PointRepString, RepPrefixedStringInstructions)
{
	EXPECT_EQ(2u, len_of({0xf3, 0xaa}));	   // rep stosb
	EXPECT_EQ(3u, len_of({0xf3, 0x48, 0xab})); // rep stosq
	EXPECT_EQ(2u, len_of({0xf3, 0xa4}));	   // rep movsb
	EXPECT_EQ(2u, len_of({0xf2, 0xae}));	   // repne scasb
	EXPECT_EQ(2u, len_of({0xf3, 0xa6}));	   // repe cmpsb
	EXPECT_EQ(3u, len_of({0x66, 0xf3, 0xab})); // rep stosw
	EXPECT_EQ(4u, len_of({0x67, 0xf3, 0x48, 0xa5, 0x90}));
}

TEST(PointRepString, OtherInstructions)
{
	EXPECT_EQ(0u, len_of({0xaa}));			 // stosb without rep
	EXPECT_EQ(0u, len_of({0xf3, 0x90}));		 // pause
	EXPECT_EQ(0u, len_of({0xf3, 0xc3}));		 // rep ret
	EXPECT_EQ(0u, len_of({0xf3, 0x0f, 0xb8}));	 // popcnt
	EXPECT_EQ(0u, len_of({0xf3, 0x0f, 0x1e, 0xfa})); // endbr64
	EXPECT_EQ(0u, len_of({0x48, 0x89, 0xd1}));	 // mov
	EXPECT_EQ(0u, len_of({0xf3}));			 // cut short
	EXPECT_EQ(0u, len_of({}));
}

} // namespace
