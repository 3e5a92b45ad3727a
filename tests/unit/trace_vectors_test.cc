/* The committed test vectors in trace-format/vectors/: each directory NAME is a
 * trace (or not) and NAME.expected says what a reader must make of it. The
 * disabled test Regenerate rewrites the vectors and the fuzzer's seed corpus
 * (run it with --gtest_also_run_disabled_tests --gtest_filter='*Regenerate').
 */
#include <gtest/gtest.h>

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <zstd.h>

#include "mrr/trace.h"
#include "trace/xxh64.h"
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

const std::string kVectors = MRR_SOURCE_DIR "/trace-format/vectors";
const std::string kCorpus = MRR_SOURCE_DIR "/trace-format/corpus";

const std::map<std::string, int> kCodes = {
	{"0", 0},
	{"MRR_E_NOT_TRACE", MRR_E_NOT_TRACE},
	{"MRR_E_INCOMPLETE", MRR_E_INCOMPLETE},
	{"MRR_E_VERSION", MRR_E_VERSION},
	{"MRR_E_CORRUPT", MRR_E_CORRUPT},
	{"ENOENT", -ENOENT},
};

const char *end_name(enum mrr_trace_end end)
{
	switch (end) {
	case MRR_END_COMPLETE:
		return "complete";
	case MRR_END_INTERRUPTED:
		return "interrupted";
	case MRR_END_ERROR:
		return "error";
	}
	return "?";
}

void put64(struct trace_xxh64_state *st, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	trace_xxh64_update(st, b, 8);
}

/* The digest trace-format/vectors/README.md defines over a sequence of
 * events. */
void digest_event(struct trace_xxh64_state *st, const struct mrr_event &ev)
{
	put64(st, ev.seq);
	put64(st, ev.kind);
	put64(st, ev.flags);
	put64(st, (uint64_t)(int64_t)ev.tid);
	put64(st, ev.ip);
	put64(st, (uint64_t)ev.nr);
	for (int i = 0; i < 6; i++)
		put64(st, ev.args[i]);
	put64(st, (uint64_t)ev.result);
	put64(st, ev.nwrites);
	put64(st, ev.extra_len);
	if (ev.extra_len)
		trace_xxh64_update(st, ev.extra, ev.extra_len);
	for (uint32_t i = 0; i < ev.nwrites; i++) {
		put64(st, ev.writes[i].addr);
		put64(st, ev.writes[i].len);
		if (ev.writes[i].len)
			trace_xxh64_update(st, ev.writes[i].data,
					   ev.writes[i].len);
	}
}

/* What a reader made of a vector, in the terms of a .expected file. */
std::map<std::string, std::string> observe(const std::string &dir)
{
	std::map<std::string, std::string> got;
	mrr_trace_reader *r = nullptr;
	char err[512];
	int ret = mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err));

	for (auto &kv : kCodes) {
		if (kv.second == ret)
			got["open"] = kv.first;
	}
	if (ret) {
		got["open_message"] = err;
	} else {
		struct mrr_event ev;
		uint64_t n = 0;

		while ((ret = mrr_trace_next(r, &ev)) == 1)
			n++;
		got["events"] = std::to_string(n);
		got["next"] = ret == 0		     ? "0"
			      : ret == MRR_E_CORRUPT ? "MRR_E_CORRUPT"
						     : std::to_string(ret);
		got["next_message"] = mrr_trace_error_message(r);
		enum mrr_trace_end end;
		const char *msg;
		if (mrr_trace_committed(r, &end, &msg)) {
			got["end"] = end_name(end);
			got["message"] = msg;
		}
		struct mrr_trace_stats st;
		mrr_trace_stats(r, &st);
		got["files"] = std::to_string(st.files);
		mrr_trace_close(r);
		r = nullptr;
	}
	if (mrr_trace_open(dir.c_str(), MRR_READER_FORCE, &r, err,
			   sizeof(err)) == 0) {
		struct trace_xxh64_state st;
		struct mrr_event ev;
		uint64_t n = 0;

		trace_xxh64_init(&st, 0);
		while (mrr_trace_next(r, &ev) == 1) {
			digest_event(&st, ev);
			n++;
		}
		char hex[17];
		snprintf(hex, sizeof(hex), "%016llx",
			 (unsigned long long)trace_xxh64_digest(&st));
		got["force_events"] = std::to_string(n);
		got["force_digest"] = hex;
		mrr_trace_close(r);
	}
	return got;
}

/* Keys whose expected value only has to occur in what was observed (the
 * messages name the directory, which depends on where the tree is). */
bool is_substring_key(const std::string &key)
{
	return key == "open_message" || key == "next_message";
}

std::vector<std::string> list_dir(const std::string &dir)
{
	std::vector<std::string> out;
	DIR *d = opendir(dir.c_str());

	if (!d)
		return out;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.')
			out.push_back(de->d_name);
	}
	closedir(d);
	std::sort(out.begin(), out.end());
	return out;
}

} // namespace

TEST(TraceVectors, MatchExpectedOutcomes)
{
	int checked = 0;

	for (const std::string &name : list_dir(kVectors)) {
		const std::string suffix = ".expected";

		if (name.size() <= suffix.size() ||
		    name.compare(name.size() - suffix.size(), suffix.size(),
				 suffix))
			continue;
		std::string vec = name.substr(0, name.size() - suffix.size());
		std::ifstream in(kVectors + "/" + name);
		std::string line;
		auto got = observe(kVectors + "/" + vec);
		int keys = 0;

		while (std::getline(in, line)) {
			if (line.empty() || line[0] == '#')
				continue;
			size_t colon = line.find(": ");
			ASSERT_NE(std::string::npos, colon)
				<< name << ": " << line;
			std::string key = line.substr(0, colon);
			std::string want = line.substr(colon + 2);
			ASSERT_TRUE(got.count(key))
				<< vec << ": no " << key << " observed";
			if (is_substring_key(key))
				EXPECT_NE(std::string::npos,
					  got[key].find(want))
					<< vec << ": " << key << " is \""
					<< got[key] << "\"";
			else
				EXPECT_EQ(want, got[key]) << vec << ": " << key;
			keys++;
		}
		EXPECT_GE(keys, 2) << name;
		checked++;
	}
	EXPECT_GE(checked, 5) << "vectors missing from " << kVectors;
}

namespace
{

std::vector<uint8_t> fuzz_input(const std::string &dir)
{
	std::vector<uint8_t> h = read_file(dir + "/header");
	std::vector<uint8_t> c = read_file(dir + "/commit");
	std::vector<uint8_t> e = read_file(dir + "/events");
	struct stat st;
	uint32_t clen = stat((dir + "/commit").c_str(), &st) == 0
				? (uint32_t)c.size()
				: 0xffffffffu;
	std::vector<uint8_t> out(8);

	for (int i = 0; i < 4; i++) {
		out[i] = (uint8_t)(h.size() >> (8 * i));
		out[4 + i] = (uint8_t)(clen >> (8 * i));
	}
	out.insert(out.end(), h.begin(), h.end());
	out.insert(out.end(), c.begin(), c.end());
	out.insert(out.end(), e.begin(), e.end());
	return out;
}

/* The fuzzer's raw-chunk form of a trace (see tests/fuzz/fuzz_trace_reader.c):
 * the header, no commit, and each chunk's decompressed events. */
std::vector<uint8_t> fuzz_raw_input(const std::string &dir)
{
	std::vector<uint8_t> h = read_file(dir + "/header");
	std::vector<uint8_t> e = read_file(dir + "/events");
	std::vector<uint8_t> out(8);
	uint32_t hlen = (uint32_t)h.size() | 0x80000000u;

	for (int i = 0; i < 4; i++) {
		out[i] = (uint8_t)(hlen >> (8 * i));
		out[4 + i] = 0xff;
	}
	out.insert(out.end(), h.begin(), h.end());
	for (size_t off = 0; off + 32 <= e.size();) {
		uint32_t clen = e[off + 4] | e[off + 5] << 8 |
				e[off + 6] << 16 | (uint32_t)e[off + 7] << 24;
		if (off + 32 + clen > e.size())
			break;
		unsigned long long raw =
			ZSTD_getFrameContentSize(&e[off + 32], clen);
		std::vector<uint8_t> buf(raw);
		size_t got = ZSTD_decompress(buf.data(), buf.size(),
					     &e[off + 32], clen);
		EXPECT_EQ(raw, got);
		out.insert(out.end(), e.begin() + off + 12,
			   e.begin() + off + 16);
		for (int i = 0; i < 4; i++)
			out.push_back((uint8_t)(raw >> (8 * i)));
		out.insert(out.end(), buf.begin(), buf.end());
		off += 32 + clen;
	}
	return out;
}

struct VectorWriter {
	std::string dir;
	mrr_trace_writer *w = nullptr;
	uint64_t seq = 0;

	explicit VectorWriter(const std::string &d) : dir(d)
	{
		struct mrr_trace_info info = test_info();

		rm_rf(dir);
		EXPECT_EQ(0,
			  mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	}
	void chunk(int n)
	{
		GenEvent g;

		for (int i = 0; i < n; i++, seq++) {
			gen_event(&g, seq, 4242);
			/* Keep the vectors small. */
			for (auto &mw : g.writes)
				mw.len = mw.len > 300 ? 300 : mw.len;
			ASSERT_EQ(0,
				  mrr_trace_writer_append(w, &g.ev, nullptr));
		}
		ASSERT_EQ(0, mrr_trace_writer_flush(w));
	}
};

/* Offsets of the chunks in an events file. */
std::vector<size_t> chunk_offsets(const std::vector<uint8_t> &s)
{
	std::vector<size_t> out;

	for (size_t off = 0; off + 32 <= s.size();) {
		out.push_back(off);
		off += 32 + (s[off + 4] | s[off + 5] << 8 | s[off + 6] << 16 |
			     (uint32_t)s[off + 7] << 24);
	}
	return out;
}

void write_expected(const std::string &name, const std::string &comment,
		    const std::vector<std::string> &keys)
{
	auto got = observe(kVectors + "/" + name);
	std::ofstream out(kVectors + "/" + name + ".expected");

	out << "# " << comment << "\n";
	for (const std::string &k : keys) {
		std::string v = got[k];

		/* Messages are matched from "trace DIR" on, without DIR. */
		if (is_substring_key(k)) {
			size_t p = v.find(name);
			if (p != std::string::npos)
				v = v.substr(p + name.size());
		}
		out << k << ": " << v << "\n";
	}
}

} // namespace

TEST(TraceVectors, DISABLED_Regenerate)
{
	mkdir(kVectors.c_str(), 0755);
	mkdir(kCorpus.c_str(), 0755);

	{
		VectorWriter v(kVectors + "/committed");
		v.chunk(7);
		v.chunk(1);
		v.chunk(12);
		char name[MRR_STORED_NAME_MAX];
		std::string src = v.dir + "/../stored.tmp";
		ASSERT_TRUE(write_file(src, {'h', 'e', 'l', 'l', 'o', '\n'}));
		ASSERT_EQ(0,
			  mrr_trace_writer_store_file(v.w, src.c_str(), name));
		unlink(src.c_str());
		ASSERT_EQ(0, mrr_trace_writer_finish(v.w, MRR_END_COMPLETE,
						     "recorded 20 events"));
	}
	write_expected("committed", "a whole trace: 20 events, one stored file",
		       {"open", "events", "next", "end", "message", "files",
			"force_events", "force_digest"});

	{
		VectorWriter v(kVectors + "/committed_interrupted");
		v.chunk(3);
		ASSERT_EQ(0, mrr_trace_writer_finish(v.w, MRR_END_INTERRUPTED,
						     "interrupted by SIGINT"));
	}
	write_expected("committed_interrupted",
		       "a whole trace of a recording the user interrupted",
		       {"open", "events", "next", "end", "message",
			"force_events", "force_digest"});

	{
		VectorWriter v(kVectors + "/uncommitted");
		v.chunk(5);
		v.chunk(4);
		v.chunk(6);
		mrr_trace_writer_abort(v.w);
		/* The recorder died while writing the last chunk. */
		std::string ev = v.dir + "/events";
		std::vector<uint8_t> s = read_file(ev);
		size_t last = chunk_offsets(s).back();
		s.resize(last + (s.size() - last) / 2);
		ASSERT_TRUE(write_file(ev, s));
	}
	write_expected(
		"uncommitted",
		"no commit and a torn last chunk: 9 events salvageable",
		{"open", "open_message", "force_events", "force_digest"});

	{
		VectorWriter v(kVectors + "/wrong_version");
		v.chunk(2);
		ASSERT_EQ(0, mrr_trace_writer_finish(v.w, MRR_END_COMPLETE,
						     nullptr));
		std::string hp = v.dir + "/header";
		std::vector<uint8_t> h = read_file(hp);
		size_t n = h.size();
		h[8] = 7;
		uint64_t sum = trace_xxh64(h.data(), n - 8, 0);
		for (int i = 0; i < 8; i++)
			h[n - 8 + i] = (uint8_t)(sum >> (8 * i));
		ASSERT_TRUE(write_file(hp, h));
	}
	write_expected("wrong_version",
		       "a header of format version 7 with a valid checksum",
		       {"open", "open_message"});

	{
		VectorWriter v(kVectors + "/corrupt_chunk");
		v.chunk(4);
		v.chunk(4);
		v.chunk(4);
		ASSERT_EQ(0, mrr_trace_writer_finish(v.w, MRR_END_COMPLETE,
						     nullptr));
		std::string ev = v.dir + "/events";
		std::vector<uint8_t> s = read_file(ev);
		std::vector<size_t> offs = chunk_offsets(s);
		s[(offs[1] + offs[2]) / 2] ^= 0x20;
		ASSERT_TRUE(write_file(ev, s));
	}
	write_expected("corrupt_chunk",
		       "committed, one byte of chunk 1's payload flipped",
		       {"open", "events", "next", "next_message",
			"force_events", "force_digest"});

	{
		std::string d = kVectors + "/not_a_trace";
		rm_rf(d);
		ASSERT_EQ(0, mkdir(d.c_str(), 0755));
		ASSERT_TRUE(write_file(d + "/notes.txt", {'h', 'i', '\n'}));
	}
	write_expected("not_a_trace", "a directory without a trace header",
		       {"open", "open_message"});

	for (const std::string &name : list_dir(kVectors)) {
		struct stat st;
		std::string p = kVectors + "/" + name;

		if (stat(p.c_str(), &st) || !S_ISDIR(st.st_mode) ||
		    name == "not_a_trace")
			continue;
		ASSERT_TRUE(write_file(kCorpus + "/" + name, fuzz_input(p)));
	}
	for (const char *name : {"committed", "uncommitted"}) {
		ASSERT_TRUE(write_file(kCorpus + "/raw_" + std::string(name),
				       fuzz_raw_input(kVectors + "/" + name)));
	}
}
