/* Fault injection: a child writes a trace and is killed with SIGKILL at a
 * random moment. Every such trace must be refused as incomplete, and salvage
 * must yield exactly a prefix of what the child wrote, as many events as the
 * refusal said. */
#include <gtest/gtest.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <random>
#include <string>

#include "mrr/trace.h"
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

const uint64_t kSalt = 77;
const uint64_t kBigEvery = 211;

/* The child: writes events forever, flushing after a seq-derived number of
 * events so that chunks of many sizes reach the disk. */
[[noreturn]] void child_write(const std::string &dir, int ready_fd)
{
	struct mrr_trace_info info = test_info();
	mrr_trace_writer *w = nullptr;
	GenEvent g;
	uint64_t until_flush = 1;

	if (mrr_trace_writer_create(dir.c_str(), &info, 0, &w))
		_exit(2);
	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	for (uint64_t seq = 0;; seq++) {
		gen_event(&g, seq, kSalt, kBigEvery);
		int ret = mrr_trace_writer_append(w, &g.ev, nullptr);

		if (ret) {
			fprintf(stderr, "append of event %llu failed: %s\n",
				(unsigned long long)seq,
				mrr_trace_strerror(ret));
			_exit(4);
		}
		if (--until_flush == 0) {
			if (mrr_trace_writer_flush(w))
				_exit(5);
			until_flush = 1 + mix64(seq) % 300;
		}
	}
}

uint64_t count_in_message(const char *msg)
{
	const char *p = strstr(msg, "crashed); ");

	if (!p)
		return ~0ull;
	return strtoull(p + strlen("crashed); "), nullptr, 10);
}

} // namespace

TEST(TraceCrash, KilledWriterLeavesReadablePrefix)
{
	TempDir tmp;
	std::mt19937_64 rng(12345);
	uint64_t total_salvaged = 0, nonempty = 0, torn = 0;
	const int kRuns = 60;

	for (int run = 0; run < kRuns; run++) {
		std::string dir = tmp.sub("t" + std::to_string(run));
		int pipefd[2];

		ASSERT_EQ(0, pipe(pipefd));
		pid_t pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0) {
			close(pipefd[0]);
			child_write(dir, pipefd[1]);
		}
		close(pipefd[1]);
		char c;
		ASSERT_EQ(1, read(pipefd[0], &c, 1)) << "child failed to start";
		close(pipefd[0]);
		/* Up to 40 ms, sometimes right away. */
		struct timespec ts = {0, (long)(rng() % 40000) * 1000};
		if (run % 10 == 0)
			ts.tv_nsec = 0;
		nanosleep(&ts, nullptr);
		ASSERT_EQ(0, kill(pid, SIGKILL));
		int status = 0;
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFSIGNALED(status))
			<< "child exited with " << WEXITSTATUS(status);

		mrr_trace_reader *r = nullptr;
		char err[512];
		ASSERT_EQ(MRR_E_INCOMPLETE,
			  mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err)))
			<< err;
		EXPECT_EQ(nullptr, r);
		uint64_t promised = count_in_message(err);
		ASSERT_NE(~0ull, promised) << err;

		ASSERT_EQ(0, mrr_trace_open(dir.c_str(), MRR_READER_FORCE, &r,
					    err, sizeof(err)))
			<< err;
		struct mrr_event ev;
		GenEvent g;
		uint64_t n = 0;
		int ret;
		while ((ret = mrr_trace_next(r, &ev)) == 1) {
			gen_event(&g, n, kSalt, kBigEvery);
			g.ev.seq = n;
			ASSERT_TRUE(same_event(ev, g.ev)) << "run " << run;
			n++;
		}
		EXPECT_EQ(0, ret) << mrr_trace_error_message(r);
		EXPECT_EQ(promised, n) << "run " << run;
		EXPECT_EQ(0, mrr_trace_committed(r, nullptr, nullptr));
		struct mrr_trace_stats st;
		struct stat sb;
		mrr_trace_stats(r, &st);
		ASSERT_EQ(0, stat((dir + "/events").c_str(), &sb));
		torn += (uint64_t)sb.st_size > st.compressed_bytes;
		mrr_trace_close(r);
		total_salvaged += n;
		nonempty += n > 0;
		rm_rf(dir);
	}
	/* The kills must have landed at many different points. */
	EXPECT_GT(nonempty, (uint64_t)kRuns / 2);
	RecordProperty("salvaged_events", std::to_string(total_salvaged));
	RecordProperty("torn_tails", std::to_string(torn));
	printf("%d kills: %llu events salvaged, %llu traces ended in a torn "
	       "chunk\n",
	       kRuns, (unsigned long long)total_salvaged,
	       (unsigned long long)torn);
}

/* A write error (here: the file size limit, as on a full disk) makes the
 * writer fail from then on; it never commits a trace with a hole in it. */
TEST(TraceCrash, WriteErrorNeverCommits)
{
	TempDir tmp;
	std::string dir = tmp.sub("t");
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct rlimit lim = {200000, 200000};
		struct mrr_trace_info info = test_info();
		mrr_trace_writer *w = nullptr;
		GenEvent g;
		int ret = 0;

		signal(SIGXFSZ, SIG_IGN);
		if (mrr_trace_writer_create(dir.c_str(), &info, 0, &w) ||
		    setrlimit(RLIMIT_FSIZE, &lim))
			_exit(10);
		uint64_t seq;
		for (seq = 0; seq < 100000 && !ret; seq++) {
			gen_event(&g, seq, kSalt, kBigEvery);
			ret = mrr_trace_writer_append(w, &g.ev, nullptr);
			if (!ret && seq % 50 == 49)
				ret = mrr_trace_writer_flush(w);
		}
		if (ret != -EFBIG)
			_exit(11);
		/* Sticky: later calls fail too, and finish does not commit. */
		if (mrr_trace_writer_append(w, &g.ev, nullptr) != -EFBIG ||
		    mrr_trace_writer_flush(w) != -EFBIG)
			_exit(12);
		if (mrr_trace_writer_finish(w, MRR_END_COMPLETE, nullptr) !=
		    -EFBIG)
			_exit(13);
		_exit(0);
	}
	int status = 0;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	mrr_trace_reader *r = nullptr;
	char err[512];
	ASSERT_EQ(MRR_E_INCOMPLETE,
		  mrr_trace_open(dir.c_str(), 0, &r, err, sizeof(err)));
	uint64_t promised = count_in_message(err);
	ASSERT_EQ(0, mrr_trace_open(dir.c_str(), MRR_READER_FORCE, &r, err,
				    sizeof(err)));
	struct mrr_event ev;
	GenEvent g;
	uint64_t n = 0;
	while (mrr_trace_next(r, &ev) == 1) {
		gen_event(&g, n, kSalt, kBigEvery);
		g.ev.seq = n;
		ASSERT_TRUE(same_event(ev, g.ev));
		n++;
	}
	EXPECT_EQ(promised, n);
	EXPECT_GT(n, 0u);
	mrr_trace_close(r);
}
