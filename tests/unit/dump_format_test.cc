/* The dumper on events written through the trace API: each kind's line,
 * --stable masking, backtraces under their event, JSON escaping, and the
 * mrr binary's answer to an incomplete trace. */
#include <gtest/gtest.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include "trace_test_util.h"

extern "C" {
#include "core/events.h"
#include "dump/dump.h"
}

using trace_test::TempDir;

namespace
{

std::string slurp(const std::string &path)
{
	std::vector<uint8_t> v = trace_test::read_file(path);
	return std::string(v.begin(), v.end());
}

struct Ev {
	struct mrr_event ev = {};
	std::vector<uint8_t> extra;
	std::vector<struct mrr_mem_write> writes;
};

Ev syscall_ev(int32_t tid, long nr, std::vector<uint64_t> args, int64_t result)
{
	Ev e;
	e.ev.kind = MRR_EV_SYSCALL;
	e.ev.tid = tid;
	e.ev.nr = nr;
	for (size_t i = 0; i < args.size() && i < 6; i++)
		e.ev.args[i] = args[i];
	e.ev.result = result;
	return e;
}

template <typename T> void append(std::vector<uint8_t> &v, const T &x)
{
	const uint8_t *p = (const uint8_t *)&x;
	v.insert(v.end(), p, p + sizeof(x));
}

Ev signal_ev(int32_t tid, int sig, uint32_t how, int32_t code, uint64_t addr)
{
	Ev e;
	struct mrr_signal_extra x = {};
	e.ev.kind = MRR_EV_SIGNAL;
	e.ev.tid = tid;
	e.ev.nr = sig;
	e.ev.ip = 0x401000;
	x.how = how;
	memcpy(x.siginfo, &sig, 4);
	memcpy(x.siginfo + 8, &code, 4);
	memcpy(x.siginfo + 16, &addr, 8);
	append(e.extra, x);
	return e;
}

Ev exit_ev(int32_t tid, int64_t status)
{
	Ev e;
	e.ev.kind = MRR_EV_EXIT;
	e.ev.tid = tid;
	e.ev.result = status;
	return e;
}

Ev exec_ev(int32_t tid, const std::string &path)
{
	Ev e;
	struct mrr_exec_extra x = {};
	e.ev.kind = MRR_EV_EXEC;
	e.ev.tid = tid;
	e.ev.nr = SYS_execve;
	append(e.extra, x);
	e.extra.insert(e.extra.end(), path.begin(), path.end());
	e.extra.push_back(0);
	return e;
}

/* Writes the events as a committed (or, with commit false, incomplete)
 * trace in dir. */
void write_trace(const std::string &dir, std::vector<Ev> &evs,
		 bool commit = true)
{
	struct mrr_trace_info info = {};
	mrr_trace_writer *w;

	info.exe = "/bin/test";
	info.cwd = "/";
	ASSERT_EQ(0, mrr_trace_writer_create(dir.c_str(), &info, 0, &w));
	for (Ev &e : evs) {
		e.ev.extra = e.extra.empty() ? nullptr : e.extra.data();
		e.ev.extra_len = (uint32_t)e.extra.size();
		e.ev.writes = e.writes.empty() ? nullptr : e.writes.data();
		e.ev.nwrites = (uint32_t)e.writes.size();
		ASSERT_EQ(0, mrr_trace_writer_append(w, &e.ev, nullptr));
	}
	if (commit) {
		ASSERT_EQ(0, mrr_trace_writer_finish(w, MRR_END_COMPLETE, ""));
	} else {
		ASSERT_EQ(0, mrr_trace_writer_flush(w));
		mrr_trace_writer_abort(w);
	}
}

/* Dumps dir with flags; returns the output lines. */
std::vector<std::string> dump(const std::string &dir, unsigned flags)
{
	mrr_trace_reader *r;
	struct mrr_dump *d;
	struct mrr_event ev;
	char *buf = nullptr;
	size_t len = 0;
	std::vector<std::string> lines;

	EXPECT_EQ(0, mrr_trace_open(dir.c_str(), 0, &r, nullptr, 0));
	EXPECT_EQ(0, mrr_dump_create(r, flags, &d));
	FILE *out = open_memstream(&buf, &len);
	while (mrr_trace_next(r, &ev) > 0)
		mrr_dump_event(d, &ev, out);
	fclose(out);
	mrr_dump_free(d);
	mrr_trace_close(r);
	std::string s(buf, len);
	free(buf);
	size_t pos = 0, nl;
	while ((nl = s.find('\n', pos)) != std::string::npos) {
		lines.push_back(s.substr(pos, nl - pos));
		pos = nl + 1;
	}
	EXPECT_EQ(s.size(), pos) << "output does not end with a newline";
	return lines;
}

TEST(DumpFormat, SyscallsSignalsExitsRdtsc)
{
	TempDir t;
	std::vector<Ev> evs;

	evs.push_back(syscall_ev(100, SYS_mmap,
				 {0, 8192, 3, 0x22, (uint64_t)-1, 0},
				 0x7f0000000000));
	evs.push_back(syscall_ev(100, SYS_openat,
				 {(uint64_t)-100, 0x7f0000000010, 0x80000},
				 -2));
	Ev buffered = syscall_ev(100, SYS_read, {3, 0x7f0000000100, 64}, 5);
	buffered.ev.flags = MRR_EVF_BUFFERED;
	static const char data[] = "hello";
	buffered.writes.push_back({0x7f0000000100, 5, data});
	evs.push_back(buffered);
	Ev skipped = syscall_ev(100, SYS_rseq, {0, 32, 0, 0}, -38);
	skipped.ev.flags = MRR_EVF_SKIPPED;
	evs.push_back(skipped);
	evs.push_back(
		signal_ev(100, SIGSEGV, MRR_SIG_SYNC, 1 /* MAPERR */, 0xdead0));
	evs.push_back(signal_ev(100, SIGUSR1, MRR_SIG_AT_SYSCALL, -6,
				100 /* si_pid */));
	Ev tsc;
	tsc.ev.kind = MRR_EV_RDTSC;
	tsc.ev.tid = 100;
	tsc.ev.nr = 1;
	tsc.ev.args[0] = 123456789;
	tsc.ev.args[1] = 3;
	evs.push_back(tsc);
	evs.push_back(exit_ev(101, 3 << 8));
	evs.push_back(exit_ev(102, SIGSEGV | 0x80));
	evs.push_back(exit_ev(100, SIGKILL));
	write_trace(t.sub("t"), evs);

	std::vector<std::string> l = dump(t.sub("t"), 0);
	ASSERT_EQ(10u, l.size());
	EXPECT_EQ("0 100 syscall mmap(NULL, 8192, PROT_READ|PROT_WRITE, "
		  "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000  traced",
		  l[0]);
	EXPECT_EQ("1 100 syscall openat(AT_FDCWD, 0x7f0000000010, "
		  "O_RDONLY|O_CLOEXEC, 0) = -1 ENOENT  traced",
		  l[1]);
	EXPECT_EQ("2 100 syscall read(3, 0x7f0000000100, 64) = 5  buffered, "
		  "wrote 5 bytes",
		  l[2]);
	EXPECT_NE(std::string::npos, l[3].find("= -1 ENOSYS  traced, skipped"))
		<< l[3];
	EXPECT_EQ("4 100 signal SIGSEGV sync si_code=SEGV_MAPERR "
		  "si_addr=0xdead0 ip=0x401000",
		  l[4]);
	EXPECT_EQ("5 100 signal SIGUSR1 after-syscall si_code=SI_TKILL "
		  "si_pid=100",
		  l[5]);
	EXPECT_EQ("6 100 rdtsc rdtscp 123456789 aux=3", l[6]);
	EXPECT_EQ("7 101 exit exited 3", l[7]);
	EXPECT_EQ("8 102 exit killed by SIGSEGV (core dumped)", l[8]);
	EXPECT_EQ("9 100 exit killed by SIGKILL", l[9]);

	/* --stable: tids by appearance, mapping tokens, masked counters */
	l = dump(t.sub("t"), MRR_DUMP_STABLE);
	ASSERT_EQ(10u, l.size());
	EXPECT_EQ("0 1 syscall mmap(NULL, 8192, PROT_READ|PROT_WRITE, "
		  "MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = map1  traced",
		  l[0]);
	EXPECT_NE(std::string::npos, l[1].find("openat(AT_FDCWD, map1+0x10,"))
		<< l[1];
	EXPECT_NE(std::string::npos, l[4].find("si_addr=0xADDR ip=0xADDR"))
		<< l[4];
	EXPECT_EQ("5 1 signal SIGUSR1 after-syscall si_code=SI_TKILL si_pid=1",
		  l[5]);
	EXPECT_EQ("6 1 rdtsc rdtscp TSC aux=AUX", l[6]);
	EXPECT_EQ("7 2 exit exited 3", l[7]);
	EXPECT_EQ("8 3 exit killed by SIGSEGV (core dumped)", l[8]);

	/* -p: the bytes written, hexdump style */
	l = dump(t.sub("t"), MRR_DUMP_MEM);
	bool found = false;
	for (const std::string &s : l)
		if (s.find("00007f0000000100  68 65 6c 6c 6f") == 6 &&
		    s.find("|hello|") != std::string::npos)
			found = true;
	EXPECT_TRUE(found);
}

TEST(DumpFormat, MadvisePayloads)
{
	TempDir t;
	std::vector<Ev> evs;

	Ev m = syscall_ev(7, SYS_madvise, {0x10000000, 0x4000, 8 /* FREE */},
			  0);
	struct mrr_madvise_extra x = {MRR_DROP_PRESENT, 2, 0,
				      MRR_MADV_FORCED_DROP};
	struct mrr_drop_range r1 = {0x10000000, 0x10001000, MRR_FILL_ZERO, 0};
	struct mrr_drop_range r2 = {0x10002000, 0x10004000, MRR_FILL_FILE, 0};
	append(m.extra, x);
	append(m.extra, r1);
	append(m.extra, r2);
	evs.push_back(m);
	Ev bad = syscall_ev(7, SYS_madvise, {0x10000000, 0x1000, 4}, 0);
	bad.extra.assign(5, 0); /* too short to be a payload */
	evs.push_back(bad);
	Ev intr = syscall_ev(7, SYS_nanosleep, {0x1000, 0x2000}, -514);
	struct mrr_interrupted_extra ix = {(1ull << (SIGALRM - 1)) |
					   (1ull << (SIGCHLD - 1))};
	append(intr.extra, ix);
	evs.push_back(intr);
	write_trace(t.sub("t"), evs);

	std::vector<std::string> l = dump(t.sub("t"), 0);
	ASSERT_EQ(3u, l.size());
	EXPECT_EQ("0 7 syscall madvise(0x10000000, 16384, MADV_FREE) = 0  "
		  "traced, dropped [0x10000000-0x10001000) zero, dropped "
		  "[0x10002000-0x10004000) file, forced drop, "
		  "precision=present",
		  l[0]);
	EXPECT_NE(std::string::npos, l[1].find("bad madvise extra (5 bytes)"))
		<< l[1];
	EXPECT_NE(std::string::npos,
		  l[2].find("= -1 ERESTARTNOHAND  traced, interrupted, "
			    "pending SIGALRM|SIGCHLD"))
		<< l[2];
}

TEST(DumpFormat, BacktraceUnderItsEvent)
{
	TempDir t;
	std::vector<Ev> evs;
	static const char frames[] = "0x401136 stop_here+0x6 (/tmp/dir/prog)\n"
				     "0x401150 main+0x10 (/tmp/dir/prog)\n";

	evs.push_back(syscall_ev(5, SYS_madvise, {0x10000000, 0x1000, 4}, 0));
	Ev bt;
	bt.ev.kind = MRR_EV_BACKTRACE;
	bt.ev.tid = 5;
	bt.extra.assign(frames, frames + sizeof(frames) - 1);
	evs.push_back(bt);
	evs.push_back(syscall_ev(6, SYS_getpid, {}, 6));
	Ev bt2 = bt;
	bt2.ev.tid = 5; /* belongs to event 0 again: not the line above it */
	evs.push_back(bt2);
	write_trace(t.sub("t"), evs);

	std::vector<std::string> l = dump(t.sub("t"), 0);
	ASSERT_EQ(7u, l.size());
	EXPECT_EQ(0u, l[0].find("0 5 syscall madvise("));
	EXPECT_EQ("      0x401136 stop_here+0x6 (/tmp/dir/prog)", l[1]);
	EXPECT_EQ("      0x401150 main+0x10 (/tmp/dir/prog)", l[2]);
	EXPECT_EQ("2 6 syscall getpid() = 6  traced", l[3]);
	EXPECT_EQ("    backtrace of event 0 (tid 5):", l[4]);

	l = dump(t.sub("t"), MRR_DUMP_STABLE);
	EXPECT_EQ("      0xADDR stop_here+0x6 (prog)", l[1]);

	l = dump(t.sub("t"), MRR_DUMP_JSON);
	ASSERT_EQ(4u, l.size());
	EXPECT_NE(std::string::npos, l[1].find("\"kind\":\"backtrace\""))
		<< l[1];
	EXPECT_NE(std::string::npos,
		  l[1].find("\"of\":0,\"frames\":[\"0x401136 stop_here+0x6 "
			    "(/tmp/dir/prog)\",\"0x401150 main+0x10 "
			    "(/tmp/dir/prog)\"]"))
		<< l[1];
}

TEST(DumpFormat, JsonEscapesStrings)
{
	TempDir t;
	std::vector<Ev> evs;
	std::string path = "/tmp/we\"ird\\dir/new\nline\t\x01\xff\xc3\xa9";

	evs.push_back(exec_ev(1, path));
	write_trace(t.sub("t"), evs);

	std::vector<std::string> l = dump(t.sub("t"), MRR_DUMP_JSON);
	ASSERT_EQ(1u, l.size());
	EXPECT_NE(std::string::npos,
		  l[0].find("\"path\":\"/tmp/we\\\"ird\\\\dir/new\\nline\\t"
			    "\\u0001\\u00ff\xc3\xa9\""))
		<< l[0];

	l = dump(t.sub("t"), 0);
	ASSERT_EQ(1u, l.size());
	EXPECT_NE(std::string::npos,
		  l[0].find("exec \"/tmp/we\\\"ird\\\\dir/new\\nline\\t\\x01"
			    "\\xff\\xc3\\xa9\""))
		<< l[0];

	l = dump(t.sub("t"), MRR_DUMP_STABLE);
	EXPECT_NE(std::string::npos,
		  l[0].find("exec \".../new\\nline\\t\\x01\\xff\\xc3\\xa9\""))
		<< l[0];
}

TEST(DumpFormat, WaitStatus)
{
	char buf[64];

	EXPECT_STREQ("exited 0", mrr_dump_wait_status(0, buf, sizeof(buf)));
	EXPECT_STREQ("exited 255",
		     mrr_dump_wait_status(255 << 8, buf, sizeof(buf)));
	EXPECT_STREQ("killed by SIGABRT",
		     mrr_dump_wait_status(SIGABRT, buf, sizeof(buf)));
	EXPECT_STREQ("status 0x137f",
		     mrr_dump_wait_status(0x137f, buf, sizeof(buf)));
	EXPECT_STREQ("status 0x10000",
		     mrr_dump_wait_status(0x10000, buf, sizeof(buf)));
}

/* mrr dump on an incomplete trace written through the API. */
TEST(DumpCli, IncompleteTrace)
{
	TempDir t;
	std::vector<Ev> evs;
	std::string dir = t.path() + "/trace";

	for (int i = 0; i < 5; i++)
		evs.push_back(syscall_ev(9, SYS_getpid, {}, 9));
	write_trace(dir, evs, false);

	std::string mrr = std::string(MRR_BUILD_DIR) + "/bin/mrr";
	std::string out = t.path() + "/out", err = t.path() + "/err";
	std::string cmd = mrr + " dump " + dir + " >" + out + " 2>" + err;
	int st = system(cmd.c_str());
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(65, WEXITSTATUS(st));
	std::string e = slurp(err);
	EXPECT_NE(std::string::npos, e.find("incomplete")) << e;
	EXPECT_NE(std::string::npos, e.find("5 of its events")) << e;
	EXPECT_EQ(1, std::count(e.begin(), e.end(), '\n')) << e;

	cmd = mrr + " dump -f " + dir + " >" + out + " 2>" + err;
	st = system(cmd.c_str());
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	std::string o = slurp(out);
	EXPECT_EQ(5, std::count(o.begin(), o.end(), '\n')) << o;
	EXPECT_NE(std::string::npos, o.find("4 9 syscall getpid() = 9")) << o;
	e = slurp(err);
	EXPECT_NE(std::string::npos, e.find("5 events were salvaged")) << e;
}

} // namespace

namespace
{

TEST(DumpFormat, HexCollapsesRepeatedLines)
{
	std::vector<uint8_t> data(80, 0);
	char *buf = nullptr;
	size_t len = 0;

	data[0] = 'A';
	data[79] = 'z';
	FILE *out = open_memstream(&buf, &len);
	mrr_dump_hex(out, "  ", 0x1000, data.data(), data.size());
	fclose(out);
	std::string s(buf, len);
	free(buf);
	EXPECT_EQ("  0000000000001000  41 00 00 00 00 00 00 00  00 00 00 00 00 "
		  "00 00 00  |A...............|\n"
		  "  0000000000001010  00 00 00 00 00 00 00 00  00 00 00 00 00 "
		  "00 00 00  |................|\n"
		  "  *\n"
		  "  0000000000001040  00 00 00 00 00 00 00 00  00 00 00 00 00 "
		  "00 00 7a  |...............z|\n",
		  s);
}

} // namespace
