// trace_xxh64_update_zeros: the same state as trace_xxh64_update with as
// many zero bytes, whatever was buffered before and after (holes of sparse
// files are hashed with it when files are stored and checked).
#include <gtest/gtest.h>

#include <stdint.h>

#include <vector>

#include "trace/xxh64.h"

namespace
{

uint64_t digest_plain(const std::vector<uint8_t> &head, uint64_t zeros,
		      const std::vector<uint8_t> &tail)
{
	std::vector<uint8_t> all(head);
	all.resize(head.size() + zeros, 0);
	all.insert(all.end(), tail.begin(), tail.end());
	struct trace_xxh64_state st;
	trace_xxh64_init(&st, 7);
	trace_xxh64_update(&st, all.data(), all.size());
	return trace_xxh64_digest(&st);
}

uint64_t digest_fast(const std::vector<uint8_t> &head, uint64_t zeros,
		     const std::vector<uint8_t> &tail)
{
	struct trace_xxh64_state st;
	trace_xxh64_init(&st, 7);
	trace_xxh64_update(&st, head.data(), head.size());
	trace_xxh64_update_zeros(&st, zeros);
	trace_xxh64_update(&st, tail.data(), tail.size());
	return trace_xxh64_digest(&st);
}

} // namespace

TEST(Xxh64Zeros, MatchesPlainUpdate)
{
	const size_t heads[] = {0, 1, 5, 31, 32, 33, 100};
	const uint64_t holes[] = {0, 1, 7, 31, 32, 33, 64, 95, 4096, 65537};
	const size_t tails[] = {0, 3, 32, 40};

	for (size_t h : heads)
		for (uint64_t z : holes)
			for (size_t t : tails) {
				std::vector<uint8_t> head(h), tail(t);
				for (size_t i = 0; i < h; i++)
					head[i] = (uint8_t)(i * 7 + 1);
				for (size_t i = 0; i < t; i++)
					tail[i] = (uint8_t)(i * 13 + 5);
				EXPECT_EQ(digest_plain(head, z, tail),
					  digest_fast(head, z, tail))
					<< "head " << h << " zeros " << z
					<< " tail " << t;
			}
}
