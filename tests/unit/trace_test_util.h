/* Helpers for the trace unit tests: temporary directories and a deterministic
 * event generator whose every byte can be recomputed from the event number.
 */
#ifndef MRR_TESTS_TRACE_TEST_UTIL_H
#define MRR_TESTS_TRACE_TEST_UTIL_H

#include <gtest/gtest.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "mrr/trace.h"

namespace trace_test
{

inline void rm_rf(const std::string &path)
{
	struct stat st;

	if (lstat(path.c_str(), &st))
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path.c_str());

		if (d) {
			struct dirent *de;

			while ((de = readdir(d))) {
				if (strcmp(de->d_name, ".") &&
				    strcmp(de->d_name, ".."))
					rm_rf(path + "/" + de->d_name);
			}
			closedir(d);
		}
		rmdir(path.c_str());
	} else {
		unlink(path.c_str());
	}
}

/* A fresh empty directory, removed with everything in it at destruction. */
class TempDir
{
      public:
	TempDir()
	{
		const char *base = getenv("TMPDIR");
		std::string tmpl = std::string(base ? base : "/tmp") +
				   "/mrr-trace-test-XXXXXX";
		std::vector<char> buf(tmpl.begin(), tmpl.end());

		buf.push_back(0);
		if (!mkdtemp(buf.data()))
			abort();
		path_ = buf.data();
	}
	~TempDir()
	{
		rm_rf(path_);
	}
	const std::string &path() const
	{
		return path_;
	}
	std::string sub(const std::string &name) const
	{
		return path_ + "/" + name;
	}

      private:
	std::string path_;
};

inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

/* An event with owned data, fully determined by (seq, salt). */
struct GenEvent {
	struct mrr_event ev;
	std::vector<struct mrr_mem_write> writes;
	std::vector<std::vector<uint8_t>> data;
	std::vector<uint8_t> extra;
};

/* Fills data with bytes of varying entropy: runs, counters or noise. */
inline void fill_bytes(std::vector<uint8_t> &buf, uint64_t key)
{
	uint64_t s = mix64(key) | 1;

	for (size_t i = 0; i < buf.size(); i++) {
		switch (key % 3) {
		case 0:
			buf[i] = (uint8_t)(key + i / 64);
			break;
		case 1:
			buf[i] = (uint8_t)(i * 7 + key);
			break;
		default:
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			buf[i] = (uint8_t)s;
			break;
		}
	}
}

/* big_every: every big_every-th event carries one write of about 300 KiB (0:
 * never). */
inline void gen_event(GenEvent *g, uint64_t seq, uint64_t salt = 0,
		      uint64_t big_every = 0)
{
	uint64_t h = mix64(seq * 0x9e3779b97f4a7c15ull + salt);
	struct mrr_event *ev = &g->ev;
	uint32_t nwrites = (uint32_t)(h % 4);

	memset(ev, 0, sizeof(*ev));
	ev->kind = 1 + (uint32_t)(seq % MRR_EV_KIND_MAX);
	ev->flags = (uint32_t)((h >> 8) & 0xf);
	ev->tid = (int32_t)(1000 + seq % 7) * ((h >> 12) & 1 ? 1 : -1);
	ev->ip = 0x400000 + (h & 0xffffff);
	ev->nr = (int64_t)(h >> 20) % 450 - 20;
	for (int i = 0; i < 6; i++)
		ev->args[i] = mix64(h + (uint64_t)i) >> ((i * 11) % 64);
	ev->result = (int64_t)mix64(h ^ 0x55) >> (h % 64);
	g->writes.assign(nwrites, mrr_mem_write{});
	g->data.assign(nwrites, std::vector<uint8_t>());
	for (uint32_t j = 0; j < nwrites; j++) {
		uint64_t wh = mix64(h + 100 + j);
		size_t len = wh % 600;

		if (wh % 17 == 0)
			len = 4096 + wh % 9000;
		if (big_every && j == 0 && seq % big_every == big_every - 1)
			len = 300000 + wh % 50000;
		g->data[j].resize(len);
		fill_bytes(g->data[j], wh);
		g->writes[j].addr = 0x7ff000000000ull + (wh & 0xfffff000);
		g->writes[j].len = len;
		g->writes[j].data = len ? g->data[j].data() : nullptr;
	}
	g->extra.resize((h >> 30) % 5 == 0 ? (h >> 33) % 300 : 0);
	fill_bytes(g->extra, h + 7);
	ev->nwrites = nwrites;
	ev->writes = nwrites ? g->writes.data() : nullptr;
	ev->extra_len = (uint32_t)g->extra.size();
	ev->extra = g->extra.empty() ? nullptr : g->extra.data();
}

/* Whether two events carry the same fields and bytes (seq included). */
inline ::testing::AssertionResult same_event(const struct mrr_event &a,
					     const struct mrr_event &b)
{
	if (a.seq != b.seq || a.kind != b.kind || a.flags != b.flags ||
	    a.tid != b.tid || a.ip != b.ip || a.nr != b.nr ||
	    a.result != b.result || a.nwrites != b.nwrites ||
	    a.extra_len != b.extra_len)
		return ::testing::AssertionFailure()
		       << "fixed fields differ at seq " << a.seq << "/"
		       << b.seq;
	for (int i = 0; i < 6; i++) {
		if (a.args[i] != b.args[i])
			return ::testing::AssertionFailure()
			       << "arg " << i << " differs at seq " << a.seq;
	}
	if (a.extra_len && memcmp(a.extra, b.extra, a.extra_len))
		return ::testing::AssertionFailure()
		       << "extra differs at seq " << a.seq;
	for (uint32_t i = 0; i < a.nwrites; i++) {
		const struct mrr_mem_write &x = a.writes[i], &y = b.writes[i];

		if (x.addr != y.addr || x.len != y.len ||
		    (x.len && memcmp(x.data, y.data, x.len)))
			return ::testing::AssertionFailure()
			       << "write " << i << " differs at seq " << a.seq;
	}
	return ::testing::AssertionSuccess();
}

inline struct mrr_trace_info test_info()
{
	static const char argv[] = "/bin/prog\0--flag\0arg with space";
	static const char env[] = "HOME=/root\0PATH=/usr/bin:/bin";
	struct mrr_trace_info info;

	memset(&info, 0, sizeof(info));
	info.flags = MRR_INFO_SYSCALLBUF | MRR_INFO_PFN_READABLE;
	info.syscallbuf_abi = 3;
	strcpy(info.mrr_version, "0.1.0-test");
	strcpy(info.kernel, "Linux 6.18.0 x86_64");
	strcpy(info.cpu, "GenuineIntel Test CPU @ 3.00GHz");
	info.cwd = "/home/user/work";
	info.exe = "/usr/local/bin/prog";
	info.argv = argv;
	info.argv_len = sizeof(argv);
	info.env = env;
	info.env_len = sizeof(env);
	info.start_time_ns = 1764430000123456789ll;
	return info;
}

/* Reads a whole file into a byte vector (empty if missing). */
inline std::vector<uint8_t> read_file(const std::string &path)
{
	std::vector<uint8_t> out;
	FILE *f = fopen(path.c_str(), "rb");

	if (!f)
		return out;
	uint8_t buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		out.insert(out.end(), buf, buf + n);
	fclose(f);
	return out;
}

inline bool write_file(const std::string &path, const std::vector<uint8_t> &d)
{
	FILE *f = fopen(path.c_str(), "wb");

	if (!f)
		return false;
	bool ok = d.empty() || fwrite(d.data(), 1, d.size(), f) == d.size();

	return fclose(f) == 0 && ok;
}

/* Writes a committed trace of n generated events into dir. */
inline void write_trace(const std::string &dir, uint64_t n, uint64_t salt = 0,
			uint64_t flush_every = 0, uint64_t big_every = 0)
{
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;

	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t seq = ~0ull;

		gen_event(&g, i, salt, big_every);
		ASSERT_EQ(0, mrr_trace_writer_append(w, &g.ev, &seq));
		ASSERT_EQ(i, seq);
		if (flush_every && i % flush_every == flush_every - 1) {
			ASSERT_EQ(0, mrr_trace_writer_flush(w));
		}
	}
	ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, "all done"));
}

} // namespace trace_test

#endif
