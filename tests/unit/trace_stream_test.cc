/* MRR_READER_STREAM: events too big to hold are handed out in pieces, with
 * the same bytes as the whole-chunk path, and reading them costs bounded
 * memory. */
#include "trace_test_util.h"

#include <sys/resource.h>

using namespace trace_test;

namespace
{

struct mrr_trace_info test_info()
{
	static const char argv_blob[] = "/bin/big\0";
	struct mrr_trace_info info = {};

	snprintf(info.mrr_version, sizeof(info.mrr_version), "test");
	info.cwd = "/";
	info.exe = "/bin/big";
	info.argv = argv_blob;
	info.argv_len = sizeof(argv_blob) - 1;
	info.env = "";
	return info;
}

/* Writes a trace: a small event, one event with a 1 KiB write, a 48 MiB
 * write and a 3 MiB write (extra "xtra"), and a small event after it. */
void write_big_trace(const std::string &dir, std::vector<uint8_t> &big,
		     std::vector<uint8_t> &small, std::vector<uint8_t> &tail)
{
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w;
	struct mrr_event ev = {};
	struct mrr_mem_write writes[3];

	big.resize(48u << 20);
	small.resize(1024);
	tail.resize(3u << 20);
	fill_bytes(big, 2); /* noise: compresses badly, a big chunk */
	fill_bytes(small, 1);
	fill_bytes(tail, 5);
	ASSERT_EQ(mrr_trace_writer_create(dir.c_str(), &info, 0, &w), 0);
	ev.kind = MRR_EV_SYSCALL;
	ev.tid = 7;
	ev.nr = 39;
	ASSERT_EQ(mrr_trace_writer_append(w, &ev, NULL), 0);
	writes[0] = {0x1000, small.size(), small.data()};
	writes[1] = {0x100000, big.size(), big.data()};
	writes[2] = {0x8000000, tail.size(), tail.data()};
	ev.nr = 0;
	ev.result = (int64_t)big.size();
	ev.nwrites = 3;
	ev.writes = writes;
	ev.extra = "xtra";
	ev.extra_len = 4;
	ASSERT_EQ(mrr_trace_writer_append(w, &ev, NULL), 0);
	ev = {};
	ev.kind = MRR_EV_EXIT;
	ev.tid = 7;
	ASSERT_EQ(mrr_trace_writer_append(w, &ev, NULL), 0);
	ASSERT_EQ(mrr_trace_writer_finish(w, MRR_END_COMPLETE, NULL), 0);
}

} // namespace

TEST(TraceStream, BigWritesAreReadInPieces)
{
	TempDir tmp;
	std::vector<uint8_t> big, small, tail;
	mrr_trace_reader *r;
	struct mrr_event ev;
	char msg[512];

	write_big_trace(tmp.sub("t"), big, small, tail);
	ASSERT_EQ(mrr_trace_open(tmp.sub("t").c_str(), MRR_READER_STREAM, &r,
				 msg, sizeof(msg)),
		  0)
		<< msg;
	ASSERT_EQ(mrr_trace_next(r, &ev), 1);
	ASSERT_EQ(ev.nr, 39);
	ASSERT_EQ(mrr_trace_next(r, &ev), 1);
	ASSERT_EQ(ev.nwrites, 3u);
	ASSERT_EQ(ev.extra_len, 4u);
	EXPECT_EQ(memcmp(ev.extra, "xtra", 4), 0);
	/* the first write fits in memory; the 48 MiB one does not, and what
	 * comes after it is streamed too */
	ASSERT_NE(ev.writes[0].data, nullptr);
	EXPECT_EQ(memcmp(ev.writes[0].data, small.data(), small.size()), 0);
	EXPECT_EQ(ev.writes[1].data, nullptr);
	EXPECT_EQ(ev.writes[1].len, big.size());
	EXPECT_EQ(ev.writes[2].data, nullptr);
	EXPECT_EQ(mrr_trace_read_data(r, 0, msg, 1), -EINVAL);

	std::vector<uint8_t> got(1u << 20);
	for (size_t off = 0; off < big.size(); off += got.size()) {
		ASSERT_EQ(mrr_trace_read_data(r, 1, got.data(), got.size()), 0);
		ASSERT_EQ(memcmp(got.data(), big.data() + off, got.size()), 0)
			<< "at offset " << off;
	}
	EXPECT_EQ(mrr_trace_read_data(r, 1, got.data(), 1), -EINVAL);
	/* write 2 read from the middle on: the reader skips what is left */
	ASSERT_EQ(mrr_trace_read_data(r, 2, got.data(), 100), 0);
	EXPECT_EQ(memcmp(got.data(), tail.data(), 100), 0);
	EXPECT_EQ(mrr_trace_read_data(r, 1, got.data(), 1), -EINVAL);
	/* the rest of the event is skipped by the next call */
	ASSERT_EQ(mrr_trace_next(r, &ev), 1);
	EXPECT_EQ(ev.kind, (uint32_t)MRR_EV_EXIT);
	EXPECT_EQ(mrr_trace_next(r, &ev), 0) << mrr_trace_error_message(r);
	mrr_trace_close(r);
}

TEST(TraceStream, UnreadWritesAreSkipped)
{
	TempDir tmp;
	std::vector<uint8_t> big, small, tail;
	mrr_trace_reader *r;
	struct mrr_event ev;
	int n = 0, ret;

	write_big_trace(tmp.sub("t"), big, small, tail);
	ASSERT_EQ(mrr_trace_open(tmp.sub("t").c_str(), MRR_READER_STREAM, &r,
				 NULL, 0),
		  0);
	while ((ret = mrr_trace_next(r, &ev)) == 1)
		n++;
	EXPECT_EQ(ret, 0) << mrr_trace_error_message(r);
	EXPECT_EQ(n, 3);
	mrr_trace_close(r);
}

/* Without the flag nothing changes: every write comes whole. */
TEST(TraceStream, WithoutTheFlagWritesComeWhole)
{
	TempDir tmp;
	std::vector<uint8_t> big, small, tail;
	mrr_trace_reader *r;
	struct mrr_event ev;

	write_big_trace(tmp.sub("t"), big, small, tail);
	ASSERT_EQ(mrr_trace_open(tmp.sub("t").c_str(), 0, &r, NULL, 0), 0);
	ASSERT_EQ(mrr_trace_next(r, &ev), 1);
	ASSERT_EQ(mrr_trace_next(r, &ev), 1);
	ASSERT_NE(ev.writes[1].data, nullptr);
	EXPECT_EQ(memcmp(ev.writes[1].data, big.data(), big.size()), 0);
	EXPECT_EQ(memcmp(ev.writes[2].data, tail.data(), tail.size()), 0);
	mrr_trace_close(r);
}

/* A flipped byte inside a streamed chunk is found before any of its events
 * is handed out. */
TEST(TraceStream, DamageIsFoundBeforeTheChunkIsUsed)
{
	TempDir tmp;
	std::vector<uint8_t> big, small, tail;
	mrr_trace_reader *r;
	struct mrr_event ev;
	struct stat st;

	write_big_trace(tmp.sub("t"), big, small, tail);
	std::string events = tmp.sub("t") + "/events";
	ASSERT_EQ(stat(events.c_str(), &st), 0);
	FILE *f = fopen(events.c_str(), "r+b");
	ASSERT_NE(f, nullptr);
	/* well inside the big chunk's frame */
	ASSERT_EQ(fseek(f, st.st_size / 2, SEEK_SET), 0);
	int c = fgetc(f);
	ASSERT_EQ(fseek(f, st.st_size / 2, SEEK_SET), 0);
	fputc(c ^ 0x40, f);
	fclose(f);
	ASSERT_EQ(mrr_trace_open(tmp.sub("t").c_str(), MRR_READER_STREAM, &r,
				 NULL, 0),
		  0);
	ASSERT_EQ(mrr_trace_next(r, &ev), 1); /* the first chunk is fine */
	EXPECT_EQ(mrr_trace_next(r, &ev), MRR_E_CORRUPT);
	EXPECT_NE(strstr(mrr_trace_error_message(r), "chunk 1"), nullptr)
		<< mrr_trace_error_message(r);
	mrr_trace_close(r);
}
