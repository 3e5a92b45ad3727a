// The syscall buffer's record validator (core/sbuf_records.c) on good and
// malformed records, and the preload library itself: what it imports and
// exports, and that outside mrr it behaves like libc.
#include <gtest/gtest.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/sbuf_records.h"
#include "syscallbuf/calls.h"
#include "syscalls/table.h"

namespace
{

// Builds a flush's worth of records in 8-aligned memory.
struct Recs {
	std::vector<uint64_t> words;

	size_t Add(uint32_t nr, int64_t result, uint32_t data_len,
		   uint32_t size = 0, const void *data = nullptr)
	{
		size_t off = words.size() * 8;
		mrr_syscallbuf_rec r = {};

		r.size = size ? size
			      : (uint32_t)((sizeof(r) + data_len + 7) & ~7ul);
		r.nr = nr;
		r.result = result;
		r.args[0] = 3;
		r.args[1] = 0x7ffc1000;
		r.args[2] = 64;
		r.data_len = data_len;
		size_t room = std::max<size_t>(r.size, sizeof(r) + data_len);
		words.resize(words.size() + (room + 7) / 8);
		uint8_t *p = Bytes() + off;
		memcpy(p, &r, sizeof(r));
		if (data)
			memcpy(p + sizeof(r), data, data_len);
		return off;
	}
	uint8_t *Bytes()
	{
		return reinterpret_cast<uint8_t *>(words.data());
	}
	size_t Len() const
	{
		return words.size() * 8;
	}
	mrr_syscallbuf_rec *At(size_t off)
	{
		return reinterpret_cast<mrr_syscallbuf_rec *>(Bytes() + off);
	}
};

// Expects the record at off to be rejected, with a reason naming off.
void ExpectBad(Recs &r, size_t off, const char *why_part)
{
	const mrr_syscallbuf_rec *rec = nullptr;
	const uint8_t *data = nullptr;
	char err[200];
	size_t at = 0;
	int k;

	while ((k = sbuf_next(r.Bytes(), r.Len(), &at, &rec, &data, err,
			      sizeof(err))) > 0)
		;
	ASSERT_EQ(k, -EBADMSG);
	EXPECT_EQ(at, off);
	EXPECT_NE(strstr(err, ("offset " + std::to_string(off)).c_str()),
		  nullptr)
		<< err;
	EXPECT_NE(strstr(err, why_part), nullptr) << err;
}

TEST(SbufRecords, EmptyFlushHasNoRecords)
{
	uint64_t none = 0;
	const mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	char err[100];
	size_t off = 0;

	EXPECT_EQ(sbuf_next(reinterpret_cast<uint8_t *>(&none), 0, &off, &rec,
			    &data, err, sizeof(err)),
		  0);
}

TEST(SbufRecords, WalksEveryRule)
{
	Recs r;
	char bytes[64], stat_buf[144] = {1, 2, 3};
	const mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	char err[200];
	size_t off = 0;

	for (int i = 0; i < 64; i++)
		bytes[i] = (char)i;
	size_t o_read = r.Add(__NR_pread64, 61, 61, 0, bytes);
	size_t o_fstat = r.Add(__NR_fstat, 0, 144, 0, stat_buf);
	size_t o_failed = r.Add(__NR_fstat, -EBADF, 0);
	size_t o_pid = r.Add(__NR_getpid, 1234, 0);
	size_t o_time = r.Add(__NR_time, 1700000000, 0); // time(NULL)
	size_t o_eof = r.Add(__NR_read, 0, 0);

	ASSERT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err,
			    sizeof(err)),
		  1)
		<< err;
	EXPECT_EQ((const uint8_t *)rec, r.Bytes() + o_read);
	EXPECT_EQ(rec->result, 61);
	EXPECT_EQ(memcmp(data, bytes, 61), 0);
	EXPECT_EQ(off, o_fstat);
	EXPECT_EQ(o_fstat, 48u + 64u); // 61 data bytes, padded to 64

	ASSERT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err,
			    sizeof(err)),
		  1);
	EXPECT_EQ(rec->nr, (uint32_t)__NR_fstat);
	EXPECT_EQ(data[2], 3);
	EXPECT_EQ(off, o_failed);
	for (size_t want : {o_pid, o_time, o_eof, r.Len()}) {
		ASSERT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err,
				    sizeof(err)),
			  1)
			<< err;
		EXPECT_EQ(off, want);
	}
	EXPECT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err,
			    sizeof(err)),
		  0);
}

TEST(SbufRecords, RejectsBadSizes)
{
	{
		Recs r;
		r.Add(__NR_getpid, 1, 0);
		size_t bad = r.Add(__NR_getpid, 1, 0, 40); // below the header
		r.Add(__NR_getpid, 1, 0);
		ExpectBad(r, bad, "has size 40");
	}
	{
		Recs r;
		size_t bad = r.Add(__NR_getpid, 1, 0, 60);
		ExpectBad(r, bad, "multiple of 8");
	}
	{
		Recs r;
		r.Add(__NR_getpid, 1, 0);
		size_t bad = r.Add(__NR_getpid, 1, 0);
		r.At(bad)->size = 4096; // past the end
		ExpectBad(r, bad, "bytes left");
	}
	{
		Recs r;
		size_t bad = r.Add(__NR_read, 100, 100);
		r.At(bad)->data_len = 200; // more data than the record holds
		ExpectBad(r, bad, "200 data bytes");
	}
	{
		Recs r;
		size_t bad = r.Add(__NR_getpid, 1, 0, 48 + 16); // padded by 16
		ExpectBad(r, bad, "for only 0 data bytes");
	}
	{
		Recs r;
		r.Add(__NR_getpid, 1, 0);
		r.words.push_back(0); // 8 bytes: too few for a header
		ExpectBad(r, r.Len() - 8, "cut short");
	}
}

TEST(SbufRecords, RejectsCallsTheLibraryDoesNotBuffer)
{
	Recs r;
	size_t bad = r.Add(__NR_openat2, 3, 0);
	ExpectBad(r, bad, "does not buffer");

	Recs r2;
	r2.Add(__NR_lseek, 5, 0);
	bad = r2.Add(0x6d7201, 0, 0); // MRR_SYSCALL_FLUSH is never a record
	ExpectBad(r2, bad, "does not buffer");

	// Writes stay traced: the replay must perform them again.
	for (uint32_t nr : {__NR_write, __NR_pwrite64, __NR_writev}) {
		Recs r3;
		bad = r3.Add(nr, 5, 0);
		ExpectBad(r3, bad, "does not buffer");
	}
}

TEST(SbufRecords, RejectsDataTheCallCannotWrite)
{
	struct Case {
		uint32_t nr;
		int64_t result;
		uint32_t data_len;
	} cases[] = {
		{__NR_read, 10, 5},   // fewer bytes than the result says
		{__NR_read, 10, 16},  // more
		{__NR_read, -EIO, 8}, // a failed read wrote nothing
		{__NR_readv, 0, 8},   // end of file
		{__NR_getpid, 42, 8}, // getpid writes no memory
		{__NR_lseek, 64, 64}, // nor does lseek
		{__NR_fstat, 0, 100}, // struct stat is 144 bytes
		{__NR_statx, 0, 144}, // struct statx is 256
		{__NR_fstat, -EBADF, 144}, {__NR_clock_gettime, 0, 8},
	};

	for (const Case &c : cases) {
		Recs r;
		r.Add(__NR_getpid, 7, 0);
		size_t bad = r.Add(c.nr, c.result, c.data_len);
		SCOPED_TRACE(sbuf_call_name(c.nr));
		ExpectBad(r, bad, "cannot write");
	}
}

// openat returns an fd or -errno; the id calls an id and never fail; none
// of them writes memory.
TEST(SbufRecords, RejectsResultsTheCallCannotReturn)
{
	struct Case {
		uint32_t nr;
		int64_t result;
	} bad_results[] = {
		{__NR_openat, -4096},
		{__NR_openat, (int64_t)1 << 31},
		{__NR_getuid, -1},
		{__NR_getegid, (int64_t)1 << 32},
	};

	for (const Case &c : bad_results) {
		Recs r;
		r.Add(__NR_getuid, 1000, 0);
		size_t bad = r.Add(c.nr, c.result, 0);
		SCOPED_TRACE(sbuf_call_name(c.nr));
		ExpectBad(r, bad, "cannot return");
	}
	for (uint32_t nr : {__NR_openat, __NR_access, __NR_geteuid}) {
		Recs r;
		size_t bad = r.Add(nr, 0, 8);
		SCOPED_TRACE(sbuf_call_name(nr));
		ExpectBad(r, bad, "cannot write");
	}

	Recs ok;
	ok.Add(__NR_openat, 0, 0);
	ok.Add(__NR_openat, INT32_MAX, 0);
	ok.Add(__NR_openat, -ENOENT, 0);
	ok.Add(__NR_getgid, UINT32_MAX, 0);
	ok.Add(__NR_readlink, 4, 4);
	ok.Add(__NR_readlinkat, -EINVAL, 0);
	const mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	char err[200];
	size_t off = 0;
	int k, n = 0;
	while ((k = sbuf_next(ok.Bytes(), ok.Len(), &off, &rec, &data, err,
			      sizeof(err))) > 0)
		n++;
	EXPECT_EQ(k, 0) << err;
	EXPECT_EQ(n, 6);
}

TEST(SbufRecords, LeavesOffsetAndReportsCallerBugs)
{
	Recs r;
	r.Add(__NR_getpid, 1, 0);
	const mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	char err[200];
	size_t off = r.Len() + 8;

	EXPECT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err,
			    sizeof(err)),
		  -EINVAL);
	off = 0;
	EXPECT_EQ(sbuf_next(r.Bytes() + 4, r.Len() - 8, &off, &rec, &data, err,
			    sizeof(err)),
		  -EINVAL);
	// A tiny err buffer is still NUL-terminated.
	r.At(0)->size = 12;
	off = 0;
	EXPECT_EQ(sbuf_next(r.Bytes(), r.Len(), &off, &rec, &data, err, 5),
		  -EBADMSG);
	EXPECT_EQ(strlen(err), 4u);
	EXPECT_EQ(off, 0u);
}

TEST(SbufRecords, NamesAndDescriptions)
{
	EXPECT_STREQ(sbuf_call_name(__NR_pread64), "pread64");
	EXPECT_STREQ(sbuf_call_name(__NR_newfstatat), "newfstatat");
	EXPECT_STREQ(sbuf_call_name(__NR_madvise), "madvise");
	EXPECT_EQ(sbuf_call_name(__NR_open), nullptr);
	EXPECT_STREQ(sbuf_call_name(__NR_openat), "openat");
	EXPECT_STREQ(sbuf_call_name(__NR_getegid), "getegid");
	EXPECT_EQ(sbuf_call_name(__NR_mmap), nullptr);

	Recs r;
	r.Add(__NR_pread64, 64, 64);
	char line[128];
	int n = sbuf_describe(r.At(0), line, sizeof(line));
	EXPECT_STREQ(line, "pread64(3, 0x7ffc1000, 64) = 64 [64 bytes]");
	EXPECT_EQ(n, (int)strlen(line));
	EXPECT_EQ(sbuf_describe(r.At(0), line, 8), n);
	EXPECT_STREQ(line, "pread64");
}

// Runs cmd with the shell, returning its stdout and setting *status.
std::string RunShell(const std::string &cmd, int *status)
{
	std::string out;
	char buf[4096];
	FILE *f = popen(cmd.c_str(), "r");

	if (!f) {
		*status = -1;
		return out;
	}
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		out.append(buf, n);
	*status = pclose(f);
	return out;
}

const std::string kPreload = MRR_BUILD_DIR "/lib/mrr/libmrr_preload.so";

// libc's __errno_location, and dlsym and malloc for realpath.c, all weak:
// the library loads into any program.
TEST(SbufPreload, ImportsOnlyWeakLibcSymbols)
{
	int status;
	std::string out = RunShell(
		"nm -D --undefined-only " + kPreload + " 2>&1", &status);

	ASSERT_EQ(status, 0) << out;
	// Lines like "                 w __errno_location"
	EXPECT_NE(out.find(" w __errno_location\n"), std::string::npos) << out;
	EXPECT_NE(out.find(" w dlsym\n"), std::string::npos) << out;
	EXPECT_NE(out.find(" w malloc\n"), std::string::npos) << out;
	EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
}

TEST(SbufPreload, ExportsTheWrappersAndNothingElse)
{
	int status;
	std::string out = RunShell("nm -D --defined-only " + kPreload +
					   " | awk '{print $3}'",
				   &status);
	std::set<std::string> got,
		want = {
			"read",		"write",      "pread",
			"pread64",	"pwrite",     "pwrite64",
			"readv",	"writev",     "lseek",
			"lseek64",	"close",      "getpid",
			"gettid",	"getrandom",  "clock_gettime",
			"gettimeofday", "time",	      "fstat",
			"fstat64",	"fstatat",    "fstatat64",
			"newfstatat",	"stat",	      "stat64",
			"lstat",	"lstat64",    "statx",
			"madvise",	"mprotect",   "open",
			"open64",	"openat",     "openat64",
			"__open_2",	"__open64_2", "__openat_2",
			"__openat64_2", "access",     "readlink",
			"readlinkat",	"getuid",     "getgid",
			"geteuid",	"getegid",    "realpath",
			"syscall",
		};
	size_t start = 0, nl;

	ASSERT_EQ(status, 0) << out;
	while ((nl = out.find('\n', start)) != std::string::npos) {
		if (nl > start)
			got.insert(out.substr(start, nl - start));
		start = nl + 1;
	}
	EXPECT_EQ(got, want);
}

// Outside mrr registration fails, and every wrapper must act like libc.
TEST(SbufPreload, OutsideMrrBehavesLikeLibc)
{
	const std::string prog = MRR_BUILD_DIR "/tests/programs/sbuf_mix";
	int plain_status, preload_status;
	std::string plain = RunShell(prog + " 2>&1", &plain_status);
	std::string preload =
		RunShell("LD_PRELOAD=" + kPreload + " " + prog + " 2>&1",
			 &preload_status);

	ASSERT_EQ(plain_status, 0) << plain;
	EXPECT_EQ(preload_status, 0) << preload;
	EXPECT_EQ(preload, plain);
	EXPECT_NE(preload.find("\nPASS\n"), std::string::npos) << preload;
}

} // namespace

// The buffered calls' rules (src/syscallbuf/calls.h, which the libc-free
// library compiles in) say what the syscall table (src/syscalls/) says
// about the same calls: the one table stays the authority.
TEST(SbufCalls, AgreeWithTheSyscallTable)
{
	struct Call {
		uint32_t nr;
		const char *name;
		unsigned rule;
		uint32_t size;
	};
#define SBUF_TEST_CALL(nr, name, rule, size) {nr, name, rule, size},
	const Call calls[] = {MRR_SB_CALLS(SBUF_TEST_CALL)};
#undef SBUF_TEST_CALL

	for (const Call &c : calls) {
		const mrr_syscall_desc *d = mrr_syscall_lookup(c.nr);
		SCOPED_TRACE(c.name);
		ASSERT_NE(d, nullptr);
		EXPECT_STREQ(d->name, c.name);
		const mrr_out_rule &o = d->out[0];
		switch (c.rule) {
		case MRR_SB_NONE:
		case MRR_SB_FD:
		case MRR_SB_ID:
			// madvise's table entry is hand-written code; a
			// buffered DONTNEED writes no memory either
			if (c.nr != __NR_madvise) {
				EXPECT_EQ(o.kind, MRR_OUT_NONE);
			}
			break;
		case MRR_SB_RESULT:
			// readv scatters into vectors: special in the table
			if (c.nr != __NR_readv) {
				EXPECT_EQ(o.kind, MRR_OUT_RET);
				EXPECT_EQ(o.size, 0u);
			}
			break;
		case MRR_SB_FIXED:
			EXPECT_EQ(o.kind, MRR_OUT_FIXED);
			EXPECT_EQ(o.size, c.size);
			break;
		default:
			ADD_FAILURE() << "unknown rule " << c.rule;
		}
	}
}
