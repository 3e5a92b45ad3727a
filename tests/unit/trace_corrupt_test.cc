/* Corruption: damage a committed trace byte by byte and file by file. The
 * reader must report an error, never crash, and never hand out an event that
 * differs from what was written. */
#include <gtest/gtest.h>

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "mrr/trace.h"
#include "trace/xxh64.h"
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

const uint64_t kSalt = 31;
const uint64_t kEvents = 400;

struct Outcome {
	int open_ret = 0;    /* mrr_trace_open() */
	int next_ret = 0;    /* the last mrr_trace_next() */
	uint64_t events = 0; /* events read, all checked */
	std::string message;
};

/* Opens dir with flags and reads every event, checking each one against the
 * generator. A wrong event fails the test. */
Outcome read_all(const std::string &dir, unsigned flags)
{
	Outcome o;
	mrr_trace_reader *r = nullptr;
	char err[512];

	o.open_ret = mrr_trace_open(dir.c_str(), flags, &r, err, sizeof(err));
	if (o.open_ret) {
		o.message = err;
		EXPECT_EQ(nullptr, r);
		EXPECT_NE(0u, strlen(err)) << "error without a message";
		return o;
	}
	struct mrr_event ev;
	GenEvent g;
	while ((o.next_ret = mrr_trace_next(r, &ev)) == 1) {
		gen_event(&g, o.events, kSalt);
		g.ev.seq = o.events;
		EXPECT_TRUE(same_event(ev, g.ev)) << "wrong event handed out";
		o.events++;
	}
	o.message = mrr_trace_error_message(r);
	struct mrr_trace_stats st;
	mrr_trace_stats(r, &st);
	mrr_trace_close(r);
	return o;
}

/* Whether damage was reported: by open or by reading. */
bool failed(const Outcome &o)
{
	return o.open_ret < 0 || o.next_ret < 0;
}

class TraceCorrupt : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		orig_ = tmp_.sub("orig");
		work_ = tmp_.sub("work");
		/* Chunks of 1..60 events. */
		struct mrr_trace_info info = test_info();
		mrr_trace_writer *w = nullptr;
		GenEvent g;
		uint64_t left = 1;

		ASSERT_EQ(0,
			  mrr_trace_writer_create(orig_.c_str(), &info, 0, &w));
		for (uint64_t i = 0; i < kEvents; i++) {
			gen_event(&g, i, kSalt);
			ASSERT_EQ(0,
				  mrr_trace_writer_append(w, &g.ev, nullptr));
			if (--left == 0) {
				ASSERT_EQ(0, mrr_trace_writer_flush(w));
				left = 1 + i % 60;
			}
		}
		ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE,
						     "finished"));
		for (const char *f : {"header", "events", "commit"})
			files_[f] = read_file(orig_ + "/" + f);
		/* Chunk boundaries, from the framing described in FORMAT.md:
		 * a 32-byte header whose bytes 4..7 are the payload length. */
		const std::vector<uint8_t> &s = files_["events"];
		for (size_t off = 0; off + 32 <= s.size();) {
			chunk_offsets_.push_back(off);
			chunk_events_.push_back(le32(&s[off + 12]));
			off += 32 + le32(&s[off + 4]);
			chunk_ends_.push_back(off);
		}
		ASSERT_GE(chunk_offsets_.size(), 8u);
	}

	static uint32_t le32(const uint8_t *p)
	{
		return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
	}

	/* Events in the chunks that end at or before byte end. */
	uint64_t events_before(size_t end) const
	{
		uint64_t n = 0;

		for (size_t c = 0; c < chunk_ends_.size(); c++)
			n += chunk_ends_[c] <= end ? chunk_events_[c] : 0;
		return n;
	}

	/* Lays out the original trace in work_, with file `name` replaced. */
	void make_work(const std::string &name,
		       const std::vector<uint8_t> &data)
	{
		rm_rf(work_);
		ASSERT_EQ(0, mkdir(work_.c_str(), 0755));
		ASSERT_EQ(0, mkdir((work_ + "/files").c_str(), 0755));
		for (auto &kv : files_) {
			ASSERT_TRUE(write_file(work_ + "/" + kv.first,
					       kv.first == name ? data
								: kv.second));
		}
	}

	/* Flips one bit at pos in file name and checks both read modes. */
	void check_flip(const std::string &name, size_t pos, uint8_t mask)
	{
		std::vector<uint8_t> d = files_[name];

		d[pos] ^= mask;
		make_work(name, d);
		Outcome plain = read_all(work_, 0);
		EXPECT_TRUE(failed(plain))
			<< name << " byte " << pos << " flipped unnoticed";
		if (plain.open_ret == 0 || plain.open_ret == MRR_E_CORRUPT) {
			EXPECT_NE(std::string::npos,
				  plain.message.find("corrupt"))
				<< plain.message;
		}
		/* Salvage reads a checked prefix (read_all checks every
		 * event) and stops cleanly. */
		Outcome forced = read_all(work_, MRR_READER_FORCE);
		EXPECT_EQ(0, forced.next_ret) << forced.message;
		EXPECT_LE(forced.events, kEvents);
		checks_++;
	}

	TempDir tmp_;
	std::string orig_, work_;
	std::map<std::string, std::vector<uint8_t>> files_;
	std::vector<size_t> chunk_offsets_, chunk_ends_;
	std::vector<uint64_t> chunk_events_;
	int checks_ = 0;
};

} // namespace

TEST_F(TraceCorrupt, Intact)
{
	make_work("", {});
	Outcome o = read_all(work_, 0);
	EXPECT_EQ(0, o.open_ret) << o.message;
	EXPECT_EQ(0, o.next_ret) << o.message;
	EXPECT_EQ(kEvents, o.events);
}

TEST_F(TraceCorrupt, EveryHeaderAndCommitByte)
{
	for (size_t i = 0; i < files_["header"].size(); i++)
		check_flip("header", i, (uint8_t)(1u << (i % 8)));
	for (size_t i = 0; i < files_["commit"].size(); i++)
		check_flip("commit", i, (uint8_t)(1u << (i % 8)));
	EXPECT_GT(checks_, 400);
}

TEST_F(TraceCorrupt, EveryChunkHeaderByte)
{
	for (size_t c = 0; c < chunk_offsets_.size(); c += 3) {
		for (size_t i = 0; i < 32; i++)
			check_flip("events", chunk_offsets_[c] + i,
				   (uint8_t)(0x80u >> (i % 8)));
	}
}

TEST_F(TraceCorrupt, PayloadBytes)
{
	std::mt19937_64 rng(7);
	const std::vector<uint8_t> &s = files_["events"];

	/* The zstd frame header and end of the first chunk, then random. */
	for (size_t i = 32; i < 48; i++)
		check_flip("events", i, 0x01);
	size_t end1 = chunk_offsets_[1];
	for (size_t i = end1 - 8; i < end1; i++)
		check_flip("events", i, 0x10);
	for (int k = 0; k < 300; k++) {
		size_t pos = rng() % s.size();
		check_flip("events", pos, (uint8_t)(1u << (rng() % 8)));
	}
}

TEST_F(TraceCorrupt, SalvageStopsAtTheBadChunk)
{
	/* Damage chunk 5's payload: salvage yields exactly chunks 0..4. */
	std::vector<uint8_t> d = files_["events"];
	d[chunk_offsets_[5] + 40] ^= 0xff;
	make_work("events", d);

	Outcome plain = read_all(work_, 0);
	EXPECT_EQ(0, plain.open_ret);
	EXPECT_EQ(MRR_E_CORRUPT, plain.next_ret);
	std::string where = "chunk 5 at byte offset " +
			    std::to_string(chunk_offsets_[5]) +
			    " of the event stream";
	EXPECT_NE(std::string::npos, plain.message.find(where))
		<< plain.message;
	/* Sticky: reading on repeats the error. */
	{
		mrr_trace_reader *r = nullptr;
		struct mrr_event ev;
		int ret;

		ASSERT_EQ(0, mrr_trace_open(work_.c_str(), 0, &r, nullptr, 0));
		while ((ret = mrr_trace_next(r, &ev)) == 1)
			;
		EXPECT_EQ(MRR_E_CORRUPT, ret);
		EXPECT_EQ(MRR_E_CORRUPT, mrr_trace_next(r, &ev));
		mrr_trace_close(r);
	}

	Outcome forced = read_all(work_, MRR_READER_FORCE);
	EXPECT_EQ(0, forced.next_ret);
	EXPECT_EQ(plain.events, forced.events);
	EXPECT_EQ(events_before(chunk_offsets_[5]), forced.events);
	EXPECT_NE(std::string::npos, forced.message.find(where))
		<< forced.message;
	EXPECT_GT(forced.events, 0u);
}

TEST_F(TraceCorrupt, TruncatedFiles)
{
	const std::vector<uint8_t> &s = files_["events"];
	std::vector<size_t> cuts = {0, 1, 31, 32, 33, s.size() - 1};

	for (size_t off : chunk_offsets_) {
		cuts.push_back(off);
		cuts.push_back(off + 20);
		cuts.push_back(off + 40);
	}
	for (size_t cut : cuts) {
		if (cut >= s.size())
			continue;
		make_work("events",
			  std::vector<uint8_t>(s.begin(), s.begin() + cut));
		Outcome plain = read_all(work_, 0);
		EXPECT_TRUE(failed(plain)) << "cut at " << cut;
		Outcome forced = read_all(work_, MRR_READER_FORCE);
		EXPECT_EQ(0, forced.next_ret) << forced.message;
		/* Salvage keeps exactly the chunks the cut left whole. */
		EXPECT_EQ(events_before(cut), forced.events)
			<< "cut at " << cut;
	}
	/* Cutting the header or commit. */
	for (const char *name : {"header", "commit"}) {
		const std::vector<uint8_t> &f = files_[name];
		for (size_t cut : {(size_t)0, (size_t)4, (size_t)12, (size_t)40,
				   f.size() - 9, f.size() - 1}) {
			make_work(name, std::vector<uint8_t>(f.begin(),
							     f.begin() + cut));
			Outcome plain = read_all(work_, 0);
			EXPECT_TRUE(plain.open_ret == MRR_E_CORRUPT ||
				    plain.open_ret == MRR_E_NOT_TRACE)
				<< name << " cut at " << cut << ": "
				<< plain.open_ret;
		}
	}
}

TEST_F(TraceCorrupt, AppendedBytesAndMissingFiles)
{
	std::vector<uint8_t> d = files_["events"];
	d.insert(d.end(), 100, 0);
	make_work("events", d);
	Outcome plain = read_all(work_, 0);
	EXPECT_EQ(MRR_E_CORRUPT, plain.next_ret);
	EXPECT_EQ(kEvents, plain.events);
	Outcome forced = read_all(work_, MRR_READER_FORCE);
	EXPECT_EQ(0, forced.next_ret);
	EXPECT_EQ(kEvents, forced.events);

	make_work("", {});
	ASSERT_EQ(0, unlink((work_ + "/events").c_str()));
	EXPECT_EQ(MRR_E_CORRUPT, read_all(work_, 0).open_ret);

	/* A commit from another trace does not commit this one. */
	TempDir other;
	write_trace(other.sub("t"), 5, 0);
	make_work("commit", read_file(other.sub("t") + "/commit"));
	EXPECT_EQ(MRR_E_CORRUPT, read_all(work_, 0).open_ret);
	Outcome salvage = read_all(work_, MRR_READER_FORCE);
	EXPECT_EQ(0, salvage.open_ret);
	EXPECT_EQ(kEvents, salvage.events);
}

TEST_F(TraceCorrupt, OtherFormatVersion)
{
	std::vector<uint8_t> h = files_["header"];
	size_t n = h.size();

	/* Version 7, with a valid checksum: a trace of another mrr. */
	h[8] = 7;
	uint64_t sum = trace_xxh64(h.data(), n - 8, 0);
	for (int i = 0; i < 8; i++)
		h[n - 8 + i] = (uint8_t)(sum >> (8 * i));
	make_work("header", h);
	Outcome o = read_all(work_, 0);
	EXPECT_EQ(MRR_E_VERSION, o.open_ret);
	EXPECT_EQ(
		"trace " + work_ +
			" has format version 7; this mrr reads versions 1 to 4",
		o.message);
	EXPECT_EQ(MRR_E_VERSION, read_all(work_, MRR_READER_FORCE).open_ret);
}

void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The trace relabelled as format version 1 (header and commit, with their
 * checksums): version 1 has no MRR_EV_PREEMPT, so the chunk holding the
 * first such event (seq 7: the generator cycles through the kinds) is
 * corrupt, and the events before it are read. */
TEST_F(TraceCorrupt, VersionOneHasNoPreemptEvents)
{
	std::vector<uint8_t> h = files_["header"];
	std::vector<uint8_t> c = files_["commit"];
	size_t n = h.size(), m = c.size();

	ASSERT_EQ(MRR_TRACE_FORMAT_VERSION, h[8]);
	h[8] = 1;
	uint64_t hsum = trace_xxh64(h.data(), n - 8, 0);
	put_le64(&h[n - 8], hsum);
	c[8] = 1;
	put_le64(&c[40], hsum);
	put_le64(&c[m - 8], trace_xxh64(c.data(), m - 8, 0));
	files_["header"] = h;
	make_work("commit", c);
	Outcome o = read_all(work_, 0);
	EXPECT_EQ(0, o.open_ret);
	EXPECT_EQ(MRR_E_CORRUPT, o.next_ret);
	EXPECT_LE(o.events, 7u);
}

/* The written-bytes digest flag came with version 3: a trace relabelled as
 * version 2 whose events carry it is corrupt from the chunk that holds the
 * first one, and read as it was written under its own version. */
TEST(TraceDigestFlag, OnlyFromVersionThree)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	uint8_t digest[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct mrr_event ev;
	mrr_trace_reader *r = nullptr;
	char err[512];

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	memset(&ev, 0, sizeof(ev));
	ev.kind = MRR_EV_SYSCALL;
	ev.tid = 10;
	ev.nr = 1;
	ev.result = 5;
	ASSERT_EQ(0, mrr_trace_writer_append(w, &ev, nullptr));
	ASSERT_EQ(0, mrr_trace_writer_flush(w));
	ev.flags = MRR_EVF_DIGEST | MRR_EVF_TO_STDOUT;
	ev.extra = digest;
	ev.extra_len = sizeof(digest);
	ASSERT_EQ(0, mrr_trace_writer_append(w, &ev, nullptr));
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, "done"));

	ASSERT_EQ(0, mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err)));
	ASSERT_EQ(1, mrr_trace_next(r, &ev));
	ASSERT_EQ(1, mrr_trace_next(r, &ev));
	EXPECT_EQ(MRR_EVF_DIGEST | MRR_EVF_TO_STDOUT, ev.flags);
	ASSERT_EQ(8u, ev.extra_len);
	EXPECT_EQ(0, memcmp(digest, ev.extra, 8));
	mrr_trace_close(r);

	std::vector<uint8_t> h = read_file(dir + "/header");
	std::vector<uint8_t> c = read_file(dir + "/commit");
	size_t n = h.size(), m = c.size();

	ASSERT_EQ(MRR_TRACE_FORMAT_VERSION, h[8]);
	h[8] = 2;
	uint64_t hsum = trace_xxh64(h.data(), n - 8, 0);
	put_le64(&h[n - 8], hsum);
	c[8] = 2;
	put_le64(&c[40], hsum);
	put_le64(&c[m - 8], trace_xxh64(c.data(), m - 8, 0));
	ASSERT_TRUE(write_file(dir + "/header", h));
	ASSERT_TRUE(write_file(dir + "/commit", c));
	ASSERT_EQ(0, mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err)));
	EXPECT_EQ(1, mrr_trace_next(r, &ev));
	EXPECT_EQ(MRR_E_CORRUPT, mrr_trace_next(r, &ev));
	mrr_trace_close(r);
}
