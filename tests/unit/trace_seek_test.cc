/* mrr_trace_seek(): positions by event number, backwards over chunks read
 * already and forwards over chunks not read yet, and its bounds. */
#include <gtest/gtest.h>

#include <errno.h>

#include <string>

#include "mrr/trace.h"
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

mrr_trace_reader *open_ok(const std::string &dir, unsigned flags = 0)
{
	mrr_trace_reader *r = nullptr;
	char err[512];

	EXPECT_EQ(0, mrr_trace_open(dir.c_str(), flags, &r, err, sizeof(err)))
		<< err;
	return r;
}

/* The next event is the generated event seq. */
void expect_next(mrr_trace_reader *r, uint64_t seq, uint64_t salt)
{
	struct mrr_event ev;
	GenEvent g;

	ASSERT_EQ(1, mrr_trace_next(r, &ev)) << mrr_trace_error_message(r);
	gen_event(&g, seq, salt, 0);
	g.ev.seq = seq;
	EXPECT_TRUE(same_event(ev, g.ev)) << "event " << seq;
}

} // namespace

TEST(TraceSeek, BackAndForthOverChunks)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_event ev;

	write_trace(dir, 1000, 3, 100); /* ten chunks of 100 events */
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);

	/* forward over chunks never read, then into the middle of one */
	ASSERT_EQ(0, mrr_trace_seek(r, 550));
	expect_next(r, 550, 3);
	expect_next(r, 551, 3);
	/* back to chunk starts, chunk ends and the very first event */
	for (uint64_t seq : {100u, 99u, 0u, 549u, 199u, 200u, 999u, 1u}) {
		ASSERT_EQ(0, mrr_trace_seek(r, seq)) << seq;
		expect_next(r, seq, 3);
	}
	/* reading on from a seek crosses chunk boundaries as usual */
	ASSERT_EQ(0, mrr_trace_seek(r, 95));
	for (uint64_t seq = 95; seq < 305; seq++)
		expect_next(r, seq, 3);
	/* the end is a position; past it is out of bounds */
	ASSERT_EQ(0, mrr_trace_seek(r, 1000));
	EXPECT_EQ(0, mrr_trace_next(r, &ev));
	EXPECT_EQ(-EINVAL, mrr_trace_seek(r, 1001));
	EXPECT_EQ(-EINVAL, mrr_trace_seek(r, UINT64_MAX));
	/* a failed seek leaves a reader that seeks again */
	ASSERT_EQ(0, mrr_trace_seek(r, 7));
	expect_next(r, 7, 3);
	mrr_trace_close(r);
}

TEST(TraceSeek, AfterTheEndWasReached)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_event ev;
	uint64_t n = 0;

	write_trace(dir, 300, 9, 64);
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	while (mrr_trace_next(r, &ev) == 1)
		n++;
	ASSERT_EQ(300u, n);
	for (uint64_t seq : {299u, 0u, 128u, 127u, 64u}) {
		ASSERT_EQ(0, mrr_trace_seek(r, seq)) << seq;
		expect_next(r, seq, 9);
	}
	mrr_trace_close(r);
}

TEST(TraceSeek, SalvagedTraceEndsWhereItsValidEventsEnd)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;

	/* an uncommitted trace: its chunks, no commit */
	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	for (uint64_t i = 0; i < 250; i++) {
		uint64_t seq;

		gen_event(&g, i, 5, 0);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, &seq));
		if (i % 50 == 49) {
			ASSERT_EQ(0, mrr_trace_writer_flush(w));
		}
	}
	mrr_trace_writer_abort(w);
	mrr_trace_reader *r = open_ok(dir, MRR_READER_FORCE);
	ASSERT_NE(nullptr, r);
	ASSERT_EQ(0, mrr_trace_seek(r, 249));
	expect_next(r, 249, 5);
	EXPECT_EQ(0, mrr_trace_seek(r, 250));
	EXPECT_EQ(-EINVAL, mrr_trace_seek(r, 251));
	ASSERT_EQ(0, mrr_trace_seek(r, 10));
	expect_next(r, 10, 5);
	mrr_trace_close(r);
}
