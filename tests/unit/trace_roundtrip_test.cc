/* Round trips through the trace writer and reader: events, header fields,
 * stored files, commit status, statistics and argument checks. */
#include <gtest/gtest.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "mrr/trace.h"
#include "trace/format.h"
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

mrr_trace_reader *open_ok(const std::string &dir, unsigned flags = 0)
{
	mrr_trace_reader *r = nullptr;
	char err[512];
	int ret = mrr_trace_open(dir.c_str(), flags, &r, err, sizeof(err));

	EXPECT_EQ(0, ret) << err;
	EXPECT_STREQ("", err);
	return r;
}

/* Reads every event and checks it against gen_event(seq, salt, big_every). */
uint64_t read_and_check(mrr_trace_reader *r, uint64_t salt,
			uint64_t big_every = 0)
{
	struct mrr_event ev;
	GenEvent g;
	uint64_t n = 0;
	int ret;

	while ((ret = mrr_trace_next(r, &ev)) == 1) {
		gen_event(&g, n, salt, big_every);
		g.ev.seq = n;
		EXPECT_TRUE(same_event(ev, g.ev));
		n++;
	}
	EXPECT_EQ(0, ret) << mrr_trace_error_message(r);
	/* The end is sticky. */
	EXPECT_EQ(0, mrr_trace_next(r, &ev));
	return n;
}

} // namespace

TEST(TraceRoundTrip, EveryKindWithWritesAndExtra)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");

	write_trace(dir, 5000, 1, 0, 97);
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);

	EXPECT_EQ(5000u, mrr_trace_event_count(r));
	std::map<uint32_t, int> kinds;
	{
		GenEvent g;

		for (uint64_t i = 0; i < 5000; i++) {
			gen_event(&g, i, 1, 97);
			kinds[g.ev.kind]++;
		}
	}
	EXPECT_EQ((size_t)MRR_EV_KIND_MAX, kinds.size());
	EXPECT_EQ(5000u, read_and_check(r, 1, 97));

	enum mrr_trace_end end = (enum mrr_trace_end)0;
	const char *msg = nullptr;
	EXPECT_EQ(1, mrr_trace_committed(r, &end, &msg));
	EXPECT_EQ(MRR_END_COMPLETE, end);
	EXPECT_STREQ("all done", msg);

	struct mrr_trace_stats st;
	mrr_trace_stats(r, &st);
	/* 51 events of ~300 KiB: the stream cannot fit in fewer chunks than
	 * it has chunk targets' worth of bytes. */
	EXPECT_GE(st.chunks, (15u << 20) / TRACE_CHUNK_TARGET);
	EXPECT_GT(st.raw_bytes, 15u << 20);
	EXPECT_GT(st.compressed_bytes, 0u);
	EXPECT_LT(st.compressed_bytes, st.raw_bytes);
	struct stat sb;
	ASSERT_EQ(0, stat((dir + "/events").c_str(), &sb));
	EXPECT_EQ((uint64_t)sb.st_size, st.compressed_bytes);
	EXPECT_EQ(0u, st.files);
	EXPECT_EQ(0u, st.file_bytes);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, InfoFields)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	write_trace(dir, 0);
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	const struct mrr_trace_info *info = mrr_trace_info(r);
	struct mrr_trace_info want = test_info();

	EXPECT_EQ((uint32_t)MRR_TRACE_FORMAT_VERSION, info->format_version);
	EXPECT_EQ(want.flags, info->flags);
	EXPECT_EQ(want.syscallbuf_abi, info->syscallbuf_abi);
	EXPECT_STREQ(want.mrr_version, info->mrr_version);
	EXPECT_STREQ(want.kernel, info->kernel);
	EXPECT_STREQ(want.cpu, info->cpu);
	EXPECT_STREQ(want.cwd, info->cwd);
	EXPECT_STREQ(want.exe, info->exe);
	ASSERT_EQ(want.argv_len, info->argv_len);
	EXPECT_EQ(0, memcmp(want.argv, info->argv, want.argv_len));
	ASSERT_EQ(want.env_len, info->env_len);
	EXPECT_EQ(0, memcmp(want.env, info->env, want.env_len));
	EXPECT_EQ(want.start_time_ns, info->start_time_ns);
	struct mrr_event ev;
	EXPECT_EQ(0, mrr_trace_next(r, &ev));
	EXPECT_EQ(0u, mrr_trace_event_count(r));
	mrr_trace_close(r);

	/* Absent strings read back as empty; over-long fixed fields are cut
	 * and stay NUL-terminated. */
	struct mrr_trace_info bare;
	mrr_trace_writer *w = nullptr;
	std::string dir2 = tmp.sub("bare");

	memset(&bare, 0, sizeof(bare));
	memset(bare.kernel, 'k', sizeof(bare.kernel));
	bare.start_time_ns = -5;
	ASSERT_EQ(0, mrr_trace_writer_create(dir2.c_str(), &bare, 0, &w));
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, nullptr));
	r = open_ok(dir2);
	ASSERT_NE(nullptr, r);
	info = mrr_trace_info(r);
	EXPECT_STREQ("", info->cwd);
	EXPECT_STREQ("", info->exe);
	EXPECT_EQ(0u, info->argv_len);
	EXPECT_EQ(0u, info->env_len);
	EXPECT_EQ(sizeof(bare.kernel) - 1, strlen(info->kernel));
	EXPECT_EQ(-5, info->start_time_ns);
	const char *msg = nullptr;
	EXPECT_EQ(1, mrr_trace_committed(r, nullptr, &msg));
	EXPECT_STREQ("", msg);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, LargeEventsSpanChunkSizes)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	/* Sizes around the writer's chunk target, and well above it. */
	const size_t sizes[] = {0,
				1,
				TRACE_CHUNK_TARGET - 200,
				TRACE_CHUNK_TARGET,
				TRACE_CHUNK_TARGET + 1,
				3 * TRACE_CHUNK_TARGET,
				(5 << 20) + 77};
	std::vector<std::vector<uint8_t>> blobs;
	std::vector<mrr_mem_write> many(MRR_MAX_WRITES_PER_EVENT);
	std::vector<uint8_t> extra(MRR_MAX_EXTRA_BYTES);
	uint8_t one = 0xab;

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		std::vector<uint8_t> b(sizes[i]);
		struct mrr_event ev;
		struct mrr_mem_write mw;

		fill_bytes(b, i + 2);
		blobs.push_back(b);
		memset(&ev, 0, sizeof(ev));
		ev.kind = MRR_EV_SYSCALL;
		ev.nr = 0;
		ev.result = (int64_t)sizes[i];
		mw.addr = 0x1000 * (i + 1);
		mw.len = sizes[i];
		mw.data = blobs.back().data();
		ev.nwrites = 1;
		ev.writes = &mw;
		ASSERT_EQ(0, mrr_trace_writer_append(w, &ev, nullptr));
		/* A small event between the big ones. */
		GenEvent g;
		gen_event(&g, i, 3);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, nullptr));
	}
	/* The most writes and the most extra bytes one event may have. */
	for (size_t i = 0; i < many.size(); i++) {
		many[i].addr = 0x10000 + i * 8;
		many[i].len = 1;
		many[i].data = &one;
	}
	fill_bytes(extra, 99);
	struct mrr_event big;
	memset(&big, 0, sizeof(big));
	big.kind = MRR_EV_BUFFER;
	big.nwrites = (uint32_t)many.size();
	big.writes = many.data();
	big.extra_len = (uint32_t)extra.size();
	big.extra = extra.data();
	uint64_t seq = 0;
	ASSERT_EQ(0, mrr_trace_writer_append(w, &big, &seq));
	EXPECT_EQ(14u, seq);
	EXPECT_EQ(15u, mrr_trace_writer_events(w));
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_INTERRUPTED, "stop"));

	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	struct mrr_event ev;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ASSERT_EQ(1, mrr_trace_next(r, &ev));
		EXPECT_EQ(2 * i, ev.seq);
		EXPECT_EQ((uint32_t)MRR_EV_SYSCALL, ev.kind);
		ASSERT_EQ(1u, ev.nwrites);
		EXPECT_EQ(0x1000 * (i + 1), ev.writes[0].addr);
		ASSERT_EQ(sizes[i], ev.writes[0].len);
		EXPECT_TRUE(
			sizes[i] == 0 ||
			!memcmp(blobs[i].data(), ev.writes[0].data, sizes[i]));
		EXPECT_EQ(0u, ev.extra_len);
		ASSERT_EQ(1, mrr_trace_next(r, &ev));
		GenEvent g;
		gen_event(&g, i, 3);
		g.ev.seq = 2 * i + 1;
		EXPECT_TRUE(same_event(ev, g.ev));
	}
	ASSERT_EQ(1, mrr_trace_next(r, &ev));
	big.seq = 14;
	EXPECT_TRUE(same_event(ev, big));
	EXPECT_EQ(0, mrr_trace_next(r, &ev));

	struct mrr_trace_stats st;
	mrr_trace_stats(r, &st);
	/* Each event of a chunk target or more closes its own chunk. */
	EXPECT_GE(st.chunks, 6u);
	EXPECT_GT(st.raw_bytes, (uint64_t)(9 << 20) + MRR_MAX_EXTRA_BYTES);
	enum mrr_trace_end end;
	const char *msg;
	EXPECT_EQ(1, mrr_trace_committed(r, &end, &msg));
	EXPECT_EQ(MRR_END_INTERRUPTED, end);
	EXPECT_STREQ("stop", msg);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, FlushMakesChunksOfAnySize)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;
	uint64_t n = 0;

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	/* Chunks of 1, 2, 3, ... events; empty flushes write nothing. */
	for (int c = 1; c <= 40; c++) {
		for (int i = 0; i < c; i++, n++) {
			gen_event(&g, n, 5);
			ASSERT_EQ(0,
				  mrr_trace_writer_append(w, &g.ev, nullptr));
		}
		ASSERT_EQ(0, mrr_trace_writer_flush(w));
		ASSERT_EQ(0, mrr_trace_writer_flush(w));
	}
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_ERROR, "boom"));
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(n, read_and_check(r, 5));
	struct mrr_trace_stats st;
	mrr_trace_stats(r, &st);
	EXPECT_EQ(40u, st.chunks);
	enum mrr_trace_end end;
	EXPECT_EQ(1, mrr_trace_committed(r, &end, nullptr));
	EXPECT_EQ(MRR_END_ERROR, end);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, SyncWriter)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;
	char name[MRR_STORED_NAME_MAX];

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info,
					     MRR_WRITER_SYNC, &w));
	for (uint64_t i = 0; i < 300; i++) {
		gen_event(&g, i, 6);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, nullptr));
	}
	std::string src = tmp.sub("src");
	ASSERT_TRUE(write_file(src, std::vector<uint8_t>(1000, 7)));
	ASSERT_EQ(0, mrr_trace_writer_store_file(w, src.c_str(), name));
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, "synced"));
	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(300u, read_and_check(r, 6));
	mrr_trace_close(r);
}

static int collect(const char *name, uint64_t size, void *arg)
{
	auto *m = static_cast<std::map<std::string, uint64_t> *>(arg);

	(*m)[name] = size;
	return 0;
}

static int stop_early(const char *name, uint64_t size, void *arg)
{
	++*static_cast<int *>(arg);
	return 42;
}

TEST(TraceRoundTrip, StoredFiles)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	char n1[MRR_STORED_NAME_MAX], n2[MRR_STORED_NAME_MAX],
		n3[MRR_STORED_NAME_MAX], n4[MRR_STORED_NAME_MAX],
		n5[MRR_STORED_NAME_MAX];
	std::vector<uint8_t> a(200000), b(1234);

	fill_bytes(a, 2);
	fill_bytes(b, 1);
	ASSERT_TRUE(write_file(tmp.sub("a1"), a));
	ASSERT_TRUE(write_file(tmp.sub("a2"), a));
	ASSERT_TRUE(write_file(tmp.sub("b"), b));
	ASSERT_TRUE(write_file(tmp.sub("empty"), {}));
	/* On another file system (tmpfs) the writer must copy. */
	std::string shm = "/dev/shm/mrr-trace-test-" + std::to_string(getpid());
	ASSERT_TRUE(write_file(shm, a));

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	ASSERT_EQ(0, mrr_trace_writer_store_file(w, tmp.sub("a1").c_str(), n1));
	ASSERT_EQ(0, mrr_trace_writer_store_file(w, tmp.sub("a2").c_str(), n2));
	ASSERT_EQ(0, mrr_trace_writer_store_file(w, tmp.sub("b").c_str(), n3));
	ASSERT_EQ(0,
		  mrr_trace_writer_store_file(w, tmp.sub("empty").c_str(), n4));
	ASSERT_EQ(0, mrr_trace_writer_store_file(w, shm.c_str(), n5));
	unlink(shm.c_str());
	/* Same content, same name; storing one path twice too. */
	EXPECT_STREQ(n1, n2);
	EXPECT_STREQ(n1, n5);
	EXPECT_STRNE(n1, n3);
	char again[MRR_STORED_NAME_MAX];
	ASSERT_EQ(0,
		  mrr_trace_writer_store_file(w, tmp.sub("b").c_str(), again));
	EXPECT_STREQ(n3, again);
	EXPECT_EQ(std::string(n4).substr(16), "-0");
	EXPECT_EQ(std::string(n1).substr(16), "-30d40");
	EXPECT_LT(strlen(n1), (size_t)MRR_STORED_NAME_MAX);

	EXPECT_EQ(-ENOENT, mrr_trace_writer_store_file(
				   w, tmp.sub("missing").c_str(), again));
	EXPECT_EQ(-EINVAL,
		  mrr_trace_writer_store_file(w, tmp.path().c_str(), again));
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, nullptr));

	mrr_trace_reader *r = open_ok(dir);
	ASSERT_NE(nullptr, r);
	char path[4096];
	ASSERT_EQ(0, mrr_trace_file_path(r, n1, path, sizeof(path)));
	EXPECT_EQ(dir + "/files/" + n1, path);
	EXPECT_EQ(a, read_file(path));
	ASSERT_EQ(0, mrr_trace_file_path(r, n3, path, sizeof(path)));
	EXPECT_EQ(b, read_file(path));
	ASSERT_EQ(0, mrr_trace_file_path(r, n4, path, sizeof(path)));
	EXPECT_TRUE(read_file(path).empty());

	/* Names that are not stored names never reach the file system. */
	const char *bad[] = {"../x",
			     "/etc/passwd",
			     "",
			     "files",
			     "..",
			     "0123456789abcdef",
			     "0123456789abcdef-",
			     "0123456789ABCDEF-10",
			     "0123456789abcdef-010",
			     "0123456789abcdef-10/../../x",
			     "0123456789abcdef-11111111111111111",
			     "../files/0123456789abcdef-10"};
	for (const char *name : bad)
		EXPECT_EQ(-EINVAL,
			  mrr_trace_file_path(r, name, path, sizeof(path)))
			<< name;
	EXPECT_EQ(-ENOENT, mrr_trace_file_path(r, "0123456789abcdef-10", path,
					       sizeof(path)));
	EXPECT_EQ(-ENAMETOOLONG, mrr_trace_file_path(r, n1, path, 10));

	std::map<std::string, uint64_t> listed;
	EXPECT_EQ(0, mrr_trace_for_each_file(r, collect, &listed));
	ASSERT_EQ(3u, listed.size());
	EXPECT_EQ(a.size(), listed[n1]);
	EXPECT_EQ(b.size(), listed[n3]);
	EXPECT_EQ(0u, listed[n4]);
	int calls = 0;
	EXPECT_EQ(42, mrr_trace_for_each_file(r, stop_early, &calls));
	EXPECT_EQ(1, calls);

	struct mrr_trace_stats st;
	struct mrr_event ev;
	EXPECT_EQ(0, mrr_trace_next(r, &ev));
	mrr_trace_stats(r, &st);
	EXPECT_EQ(3u, st.files);
	EXPECT_EQ(a.size() + b.size(), st.file_bytes);
	EXPECT_EQ(0u, st.chunks);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, WriterRefusesNonEmptyDir)
{
	TempDir tmp;
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;

	std::string full = tmp.sub("full");
	ASSERT_EQ(0, mkdir(full.c_str(), 0755));
	ASSERT_TRUE(write_file(full + "/something", {1, 2, 3}));
	EXPECT_EQ(-EEXIST, mrr_trace_writer_create(full.c_str(), &info, 0, &w));
	EXPECT_EQ(nullptr, w);
	EXPECT_EQ(std::vector<uint8_t>({1, 2, 3}),
		  read_file(full + "/something"));

	/* An existing trace is a non-empty directory too. */
	std::string t = tmp.sub("t");
	write_trace(t, 3);
	EXPECT_EQ(-EEXIST, mrr_trace_writer_create(t.c_str(), &info, 0, &w));
	EXPECT_EQ(-EEXIST, mrr_trace_writer_create(full.c_str(), &info, 0, &w));
	std::string file = tmp.sub("file");
	ASSERT_TRUE(write_file(file, {1}));
	EXPECT_EQ(-EEXIST, mrr_trace_writer_create(file.c_str(), &info, 0, &w));
	EXPECT_EQ(-ENOENT,
		  mrr_trace_writer_create(tmp.sub("no/such/parent").c_str(),
					  &info, 0, &w));
	EXPECT_EQ(-EINVAL, mrr_trace_writer_create(tmp.sub("x").c_str(), &info,
						   0x100, &w));

	/* An empty existing directory is refused too: it may be someone
	 * else's, or reachable by them. */
	std::string empty = tmp.sub("empty");
	ASSERT_EQ(0, mkdir(empty.c_str(), 0755));
	EXPECT_EQ(-EEXIST,
		  mrr_trace_writer_create(empty.c_str(), &info, 0, &w));
	EXPECT_EQ(nullptr, w);

	/* A new trace is private whatever the umask, and a failed create
	 * leaves nothing behind. */
	mode_t old = umask(0);
	std::string t2 = tmp.sub("t2");
	struct stat st;
	ASSERT_EQ(0, mrr_trace_writer_create(t2.c_str(), &info, 0, &w));
	umask(old);
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, nullptr));
	for (const char *name : {"", "/files"}) {
		ASSERT_EQ(0, stat((t2 + name).c_str(), &st));
		EXPECT_EQ(040700u, st.st_mode) << name;
	}
	for (const char *name : {"/header", "/events", "/commit"}) {
		ASSERT_EQ(0, stat((t2 + name).c_str(), &st));
		EXPECT_EQ(0100600u, st.st_mode) << name;
	}
	mrr_trace_reader *r = open_ok(t2);
	mrr_trace_close(r);
}

TEST(TraceRoundTrip, WriterRemoveNeverFollowsLinks)
{
	TempDir tmp;
	mrr_trace_writer *w = nullptr;
	std::string dir = tmp.sub("t"), victim = tmp.sub("victim");

	ASSERT_EQ(0, mkdir(victim.c_str(), 0700));
	ASSERT_TRUE(write_file(victim + "/keep", {7}));
	ASSERT_EQ(0, mrr_trace_writer_open(dir.c_str(), 0, &w));
	/* Someone swaps the files directory for a link, and plants one. */
	ASSERT_EQ(0,
		  rename((dir + "/files").c_str(), tmp.sub("moved").c_str()));
	ASSERT_EQ(0, symlink(victim.c_str(), (dir + "/files").c_str()));
	ASSERT_EQ(0, symlink((victim + "/keep").c_str(),
			     (dir + "/.commit.tmp").c_str()));
	mrr_trace_writer_remove(w);
	EXPECT_EQ(std::vector<uint8_t>({7}), read_file(victim + "/keep"));
	struct stat st;
	EXPECT_NE(0, lstat((dir + "/files").c_str(), &st));
	EXPECT_NE(0, lstat((dir + "/.commit.tmp").c_str(), &st));
}

TEST(TraceRoundTrip, WriterEnforcesLimits)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	struct mrr_event ev;
	uint8_t byte = 1;
	std::vector<mrr_mem_write> many(MRR_MAX_WRITES_PER_EVENT + 1,
					mrr_mem_write{0x1000, 1, &byte});

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	memset(&ev, 0, sizeof(ev));
	ev.kind = 0;
	EXPECT_EQ(-EINVAL, mrr_trace_writer_append(w, &ev, nullptr));
	ev.kind = MRR_EV_KIND_MAX + 1;
	EXPECT_EQ(-EINVAL, mrr_trace_writer_append(w, &ev, nullptr));
	ev.kind = MRR_EV_SYSCALL;
	ev.flags = 0x100;
	EXPECT_EQ(-EINVAL, mrr_trace_writer_append(w, &ev, nullptr));
	ev.flags = 0;
	ev.nwrites = (uint32_t)many.size();
	ev.writes = many.data();
	EXPECT_EQ(MRR_E_TOO_BIG, mrr_trace_writer_append(w, &ev, nullptr));
	/* Sizes are checked before any byte is copied. */
	struct mrr_mem_write huge[2] = {{0x1000, 1ull << 30, &byte},
					{0x1000, (1ull << 30) + 1, &byte}};
	ev.nwrites = 2;
	ev.writes = huge;
	EXPECT_EQ(MRR_E_TOO_BIG, mrr_trace_writer_append(w, &ev, nullptr));
	struct mrr_mem_write wrap = {~0ull - 10, 100, &byte};
	ev.nwrites = 1;
	ev.writes = &wrap;
	EXPECT_EQ(-EINVAL, mrr_trace_writer_append(w, &ev, nullptr));
	ev.nwrites = 0;
	ev.writes = nullptr;
	ev.extra_len = MRR_MAX_EXTRA_BYTES + 1;
	ev.extra = &byte;
	EXPECT_EQ(MRR_E_TOO_BIG, mrr_trace_writer_append(w, &ev, nullptr));
	ev.extra_len = 0;
	ev.extra = nullptr;
	/* Refused events take no number. */
	uint64_t seq = 99;
	ASSERT_EQ(0, mrr_trace_writer_append(w, &ev, &seq));
	EXPECT_EQ(0u, seq);
	EXPECT_EQ(1u, mrr_trace_writer_events(w));
	EXPECT_EQ(-EINVAL,
		  mrr_trace_writer_finish(w, (enum mrr_trace_end)9, nullptr));
	/* finish freed w whatever the result; the trace stays incomplete. */
	mrr_trace_reader *r = nullptr;
	EXPECT_EQ(MRR_E_INCOMPLETE,
		  mrr_trace_open(dir.c_str(), 0, &r, nullptr, 0));
	EXPECT_EQ(nullptr, r);
}

TEST(TraceRoundTrip, AbortLeavesIncompleteTrace)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	for (uint64_t i = 0; i < 812; i++) {
		gen_event(&g, i, 8);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, nullptr));
	}
	ASSERT_EQ(0, mrr_trace_writer_flush(w));
	/* Buffered but never flushed: lost. */
	for (uint64_t i = 812; i < 900; i++) {
		gen_event(&g, i, 8);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, nullptr));
	}
	mrr_trace_writer_abort(w);
	mrr_trace_writer_abort(nullptr);

	mrr_trace_reader *r = nullptr;
	char err[512];
	EXPECT_EQ(MRR_E_INCOMPLETE,
		  mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err)));
	EXPECT_EQ(nullptr, r);
	EXPECT_EQ("trace " + dir +
			  " is incomplete: recording did not finish (the "
			  "recorder was killed or crashed); 812 of its events "
			  "can be read with --force",
		  std::string(err));

	r = open_ok(dir, MRR_READER_FORCE);
	ASSERT_NE(nullptr, r);
	EXPECT_EQ(0, mrr_trace_committed(r, nullptr, nullptr));
	EXPECT_EQ(0u, mrr_trace_event_count(r));
	EXPECT_EQ(812u, read_and_check(r, 8));
	mrr_trace_close(r);
	mrr_trace_close(nullptr);
}

TEST(TraceRoundTrip, OpenErrors)
{
	TempDir tmp;
	mrr_trace_reader *r = nullptr;
	char err[512];

	std::string missing = tmp.sub("missing");
	EXPECT_EQ(-ENOENT,
		  mrr_trace_open(missing.c_str(), 0, &r, err, sizeof(err)));
	EXPECT_EQ("trace " + missing + " does not exist", std::string(err));

	std::string file = tmp.sub("file");
	ASSERT_TRUE(write_file(file, {'h', 'i'}));
	EXPECT_EQ(MRR_E_NOT_TRACE,
		  mrr_trace_open(file.c_str(), 0, &r, err, sizeof(err)));
	EXPECT_NE(nullptr, strstr(err, "is not an mrr trace")) << err;

	EXPECT_EQ(MRR_E_NOT_TRACE,
		  mrr_trace_open(tmp.path().c_str(), 0, &r, err, sizeof(err)));
	EXPECT_NE(nullptr, strstr(err, "has no header")) << err;

	std::string fake = tmp.sub("fake");
	ASSERT_EQ(0, mkdir(fake.c_str(), 0755));
	ASSERT_TRUE(
		write_file(fake + "/header", std::vector<uint8_t>(400, 'x')));
	EXPECT_EQ(MRR_E_NOT_TRACE,
		  mrr_trace_open(fake.c_str(), 0, &r, err, sizeof(err)));
	std::string dirhdr = tmp.sub("dirhdr");
	ASSERT_EQ(0, mkdir(dirhdr.c_str(), 0755));
	ASSERT_EQ(0, mkdir((dirhdr + "/header").c_str(), 0755));
	EXPECT_EQ(MRR_E_NOT_TRACE,
		  mrr_trace_open(dirhdr.c_str(), 0, &r, err, sizeof(err)));
	EXPECT_EQ(nullptr, r);

	/* A tiny errbuf is cut, not overrun. */
	char small[8];
	memset(small, 'z', sizeof(small));
	EXPECT_EQ(-ENOENT, mrr_trace_open(missing.c_str(), 0, &r, small, 5));
	EXPECT_EQ(4u, strlen(small));
	EXPECT_EQ('z', small[5]);
	EXPECT_EQ(-EINVAL,
		  mrr_trace_open(missing.c_str(), 0x80, &r, nullptr, 0));
}

TEST(TraceRoundTrip, Strerror)
{
	EXPECT_STREQ("trace is incomplete",
		     mrr_trace_strerror(MRR_E_INCOMPLETE));
	EXPECT_STREQ("trace is corrupt", mrr_trace_strerror(MRR_E_CORRUPT));
	EXPECT_STREQ("not an mrr trace", mrr_trace_strerror(MRR_E_NOT_TRACE));
	EXPECT_STREQ("unsupported trace format version",
		     mrr_trace_strerror(MRR_E_VERSION));
	EXPECT_STRNE("unknown error", mrr_trace_strerror(MRR_E_TOO_BIG));
	EXPECT_STREQ(strerror(ENOENT), mrr_trace_strerror(-ENOENT));
	EXPECT_STREQ("unknown error", mrr_trace_strerror(-5000));
}
