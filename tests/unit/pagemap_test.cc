// Tests for src/mem/pagemap.c: snapshots of real memory around real
// madvise calls (on this process or on a stopped child), and the diff rules
// on hand-made snapshots.
#include <gtest/gtest.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "mem/pagemap.h"
}

// Global, so that std::vector's operator== finds it.
bool operator==(const mrr_range &a, const mrr_range &b)
{
	return a.start == b.start && a.end == b.end;
}

namespace
{

const uint64_t kPage = 4096;

struct Mode {
	bool scan;
	bool pfn;
};

void PrintTo(const Mode &m, std::ostream *os)
{
	*os << (m.scan ? "scan" : "plain") << (m.pfn ? "+pfn" : "");
}

std::string ModeName(const ::testing::TestParamInfo<Mode> &info)
{
	return std::string(info.param.scan ? "Scan" : "Plain") +
	       (info.param.pfn ? "Pfn" : "NoPfn");
}

uint64_t Addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

// Anonymous private pages, never huge, so residency counts are exact.
char *MapAnon(size_t pages, int extra_flags = 0)
{
	void *p = mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
	if (p == MAP_FAILED)
		return nullptr;
	(void)madvise(p, pages * kPage, MADV_NOHUGEPAGE);
	return (char *)p;
}

// Raw syscalls: sanitizer runtimes replace mlock() with a no-op, which
// would take the locked page out of every scenario.
int Lock(const void *p, size_t len)
{
	return (int)syscall(SYS_mlock, p, len);
}

int Unlock(const void *p, size_t len)
{
	return (int)syscall(SYS_munlock, p, len);
}

std::string Show(const std::vector<mrr_range> &v, uint64_t base)
{
	std::string s;
	for (const mrr_range &r : v)
		s += "[" + std::to_string((r.start - base) / kPage) + "," +
		     std::to_string((r.end - base) / kPage) + ") ";
	return s.empty() ? "(none)" : s;
}

std::vector<mrr_range> Pages(uint64_t base,
			     std::vector<std::pair<uint64_t, uint64_t>> v)
{
	std::vector<mrr_range> out;
	for (auto &pr : v)
		out.push_back(
			{base + pr.first * kPage, base + pr.second * kPage});
	return out;
}

// Snapshot [start, end), run act, snapshot again, diff. Fails the test on
// any error.
void DiffAround(mrr_pagemap *pm, uint64_t start, uint64_t end,
		const std::function<void()> &act, std::vector<mrr_range> *out,
		size_t *resident_before = nullptr)
{
	mrr_page_snapshot *before = nullptr, *after = nullptr;
	mrr_range *ranges = nullptr;

	out->clear();
	ASSERT_EQ(0, mrr_pagemap_snapshot(pm, start, end, &before));
	if (resident_before)
		*resident_before = mrr_page_snapshot_resident(before);
	act();
	ASSERT_EQ(0, mrr_pagemap_snapshot(pm, start, end, &after));
	long n = mrr_pagemap_dropped(before, after, &ranges);
	ASSERT_GE(n, 0);
	out->assign(ranges, ranges + n);
	free(ranges);
	mrr_page_snapshot_free(before);
	mrr_page_snapshot_free(after);
}

void ApplyMode(mrr_pagemap *pm, Mode m)
{
	if (!m.scan)
		mrr_pagemap_disable_scan(pm);
	if (!m.pfn)
		mrr_pagemap_disable_pfn(pm);
}

// The seed of rr issue 3667: page 0 dropped, page 1 locked, page 2 never
// reached. Returns 0, or a short code naming what went wrong (for children
// that report through their exit status).
enum SeedResult {
	SEED_OK = 0,
	SEED_MAP = 2,
	SEED_LOCK_UNAVAILABLE = 77,
	SEED_SNAPSHOT = 3,
	SEED_MADVISE = 4,
	SEED_CONTENT = 5,
	SEED_DIFF = 6,
	SEED_LOCK = 7, /* mlock failed for another reason */
};

SeedResult RunSeed(mrr_pagemap *pm, std::vector<mrr_range> *out, uint64_t *base)
{
	mrr_page_snapshot *before = nullptr, *after = nullptr;
	mrr_range *ranges = nullptr;
	SeedResult res = SEED_OK;
	char *p = MapAnon(3);
	int ret, err;
	long n;

	if (!p)
		return SEED_MAP;
	*base = Addr(p);
	p[0] = 42;
	p[2 * kPage] = 42;
	if (Lock(p + kPage, kPage) != 0) {
		bool unavailable = errno == EPERM || errno == ENOMEM;

		munmap(p, 3 * kPage);
		return unavailable ? SEED_LOCK_UNAVAILABLE : SEED_LOCK;
	}
	if (mrr_pagemap_snapshot(pm, Addr(p), Addr(p) + 3 * kPage, &before))
		return SEED_SNAPSHOT;
	ret = madvise(p, 3 * kPage, MADV_DONTNEED);
	err = errno;
	if (mrr_pagemap_snapshot(pm, Addr(p), Addr(p) + 3 * kPage, &after))
		return SEED_SNAPSHOT;
	if (ret != -1 || err != EINVAL)
		res = SEED_MADVISE;
	else if (p[0] != 0 || p[2 * kPage] != 42)
		res = SEED_CONTENT;
	n = mrr_pagemap_dropped(before, after, &ranges);
	if (n < 0) {
		res = SEED_DIFF;
	} else {
		out->assign(ranges, ranges + n);
		free(ranges);
	}
	mrr_page_snapshot_free(before);
	mrr_page_snapshot_free(after);
	Unlock(p + kPage, kPage);
	munmap(p, 3 * kPage);
	return res;
}

class PagemapTest : public ::testing::TestWithParam<Mode>
{
      protected:
	void SetUp() override
	{
		ASSERT_EQ(0, mrr_pagemap_open(getpid(), &pm_));
		if (GetParam().scan && !mrr_pagemap_has_scan(pm_))
			GTEST_SKIP() << "PAGEMAP_SCAN needs Linux 6.7+";
		ApplyMode(pm_, GetParam());
	}
	void TearDown() override
	{
		mrr_pagemap_close(pm_);
	}
	mrr_pagemap *pm_ = nullptr;
};

TEST_P(PagemapTest, SeedDropsOnlyThePageBeforeTheLock)
{
	std::vector<mrr_range> got;
	uint64_t base = 0;

	SeedResult r = RunSeed(pm_, &got, &base);
	if (r == SEED_LOCK_UNAVAILABLE)
		GTEST_SKIP() << "mlock not allowed here";
	ASSERT_EQ(SEED_OK, r);
	EXPECT_EQ(Pages(base, {{0, 1}}), got) << Show(got, base);
}

TEST_P(PagemapTest, FullDontneedIsOneRange)
{
	char *p = MapAnon(16);
	std::vector<mrr_range> got;
	size_t resident = 0;

	ASSERT_NE(nullptr, p);
	for (int i = 0; i < 16; i++)
		p[i * kPage] = 1;
	DiffAround(
		pm_, Addr(p), Addr(p) + 16 * kPage,
		[&] { ASSERT_EQ(0, madvise(p, 16 * kPage, MADV_DONTNEED)); },
		&got, &resident);
	EXPECT_EQ(16u, resident);
	EXPECT_EQ(Pages(Addr(p), {{0, 16}}), got) << Show(got, Addr(p));
	munmap(p, 16 * kPage);
}

TEST_P(PagemapTest, UntouchedGapsAreMerged)
{
	char *p = MapAnon(16);
	std::vector<mrr_range> got;
	size_t resident = 0;

	ASSERT_NE(nullptr, p);
	for (int i = 0; i < 16; i += 3)
		p[i * kPage] = 1; // pages 0 3 6 9 12 15
	DiffAround(
		pm_, Addr(p), Addr(p) + 16 * kPage,
		[&] { ASSERT_EQ(0, madvise(p, 16 * kPage, MADV_DONTNEED)); },
		&got, &resident);
	EXPECT_EQ(6u, resident);
	EXPECT_EQ(Pages(Addr(p), {{0, 16}}), got) << Show(got, Addr(p));
	munmap(p, 16 * kPage);
}

TEST_P(PagemapTest, PageKeptInTheMiddleSplitsTheRange)
{
	char *p = MapAnon(16);
	std::vector<mrr_range> got;

	ASSERT_NE(nullptr, p);
	for (int i = 0; i < 16; i++)
		p[i * kPage] = 1;
	if (Lock(p + 8 * kPage, kPage) != 0)
		GTEST_SKIP() << "mlock: " << strerror(errno);
	DiffAround(
		pm_, Addr(p), Addr(p) + 16 * kPage,
		[&] {
			// Stops at the locked page after dropping 0-7...
			errno = 0;
			EXPECT_EQ(-1, madvise(p, 16 * kPage, MADV_DONTNEED));
			EXPECT_EQ(EINVAL, errno);
			// ...and the rest goes separately.
			EXPECT_EQ(0, madvise(p + 9 * kPage, 7 * kPage,
					     MADV_DONTNEED));
		},
		&got);
	EXPECT_EQ(Pages(Addr(p), {{0, 8}, {9, 16}}), got) << Show(got, Addr(p));
	EXPECT_EQ(1, p[8 * kPage]);
	Unlock(p + 8 * kPage, kPage);
	munmap(p, 16 * kPage);
}

TEST_P(PagemapTest, PageThatAppearsAfterSplitsTheRange)
{
	char *p = MapAnon(3);
	std::vector<mrr_range> got;

	ASSERT_NE(nullptr, p);
	p[0] = 1;
	p[2 * kPage] = 1;
	DiffAround(
		pm_, Addr(p), Addr(p) + 3 * kPage,
		[&] {
			ASSERT_EQ(0, madvise(p, 3 * kPage, MADV_DONTNEED));
			p[kPage] = 1; // faulted in after the drop
		},
		&got);
	EXPECT_EQ(Pages(Addr(p), {{0, 1}, {2, 3}}), got) << Show(got, Addr(p));
	munmap(p, 3 * kPage);
}

TEST_P(PagemapTest, UnchangedPagesAreNotDropped)
{
	char *p = MapAnon(8);
	std::vector<mrr_range> got;

	ASSERT_NE(nullptr, p);
	for (int i = 0; i < 8; i++)
		p[i * kPage] = 1;
	DiffAround(
		pm_, Addr(p), Addr(p) + 8 * kPage,
		[&] {
			ASSERT_EQ(0,
				  madvise(p + 2 * kPage, kPage, MADV_DONTNEED));
			p[5 * kPage] = 2; // written, same frame
		},
		&got);
	EXPECT_EQ(Pages(Addr(p), {{2, 3}}), got) << Show(got, Addr(p));
	munmap(p, 8 * kPage);
}

// A page dropped and faulted in again is present both times; only its frame
// tells. A child holds the old frame through copy-on-write, so the new one
// must differ.
TEST_P(PagemapTest, RefaultedPageIsDroppedOnlyWithPfns)
{
	char *p = MapAnon(2);
	std::vector<mrr_range> got;
	int hold[2];

	ASSERT_NE(nullptr, p);
	p[0] = 1;
	p[kPage] = 1;
	ASSERT_EQ(0, pipe(hold));
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char c;
		close(hold[1]);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(hold[0]);
	DiffAround(
		pm_, Addr(p), Addr(p) + 2 * kPage,
		[&] {
			ASSERT_EQ(0, madvise(p, kPage, MADV_DONTNEED));
			p[0] = 2;
		},
		&got);
	close(hold[1]);
	int status;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (mrr_pagemap_pfn_readable(pm_))
		EXPECT_EQ(Pages(Addr(p), {{0, 1}}), got) << Show(got, Addr(p));
	else
		EXPECT_TRUE(got.empty()) << Show(got, Addr(p));
	munmap(p, 2 * kPage);
}

TEST_P(PagemapTest, PrivateFileWrittenPageIsDropped)
{
	char path[] = "/tmp/mrr-pagemap-XXXXXX";
	int fd = mkstemp(path);
	std::vector<char> content(4 * kPage);
	std::vector<mrr_range> got;
	size_t resident = 0;

	ASSERT_GE(fd, 0);
	unlink(path);
	for (size_t i = 0; i < content.size(); i++)
		content[i] = (char)('a' + i % 23);
	ASSERT_EQ((ssize_t)content.size(),
		  pwrite(fd, content.data(), content.size(), 0));
	char *p = (char *)mmap(nullptr, 4 * kPage, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	volatile char sink = 0;
	for (int i = 0; i < 4; i++)
		sink += p[i * kPage]; // page cache pages mapped
	(void)sink;
	memset(p + kPage, 0, kPage); // copy-on-write: an anonymous page
	DiffAround(
		pm_, Addr(p), Addr(p) + 4 * kPage,
		[&] { ASSERT_EQ(0, madvise(p, 4 * kPage, MADV_DONTNEED)); },
		&got, &resident);
	EXPECT_EQ(4u, resident);
	EXPECT_EQ(Pages(Addr(p), {{0, 4}}), got) << Show(got, Addr(p));
	EXPECT_EQ(0, memcmp(p, content.data(), content.size()));
	munmap(p, 4 * kPage);
	close(fd);
}

TEST_P(PagemapTest, PrivateFileOnlyWrittenPageResident)
{
	char path[] = "/tmp/mrr-pagemap-XXXXXX";
	int fd = mkstemp(path);
	std::vector<mrr_range> got;

	ASSERT_GE(fd, 0);
	unlink(path);
	ASSERT_EQ(0, ftruncate(fd, 4 * kPage));
	char *p = (char *)mmap(nullptr, 4 * kPage, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	p[2 * kPage] = 7; // a write fault maps only the private copy
	DiffAround(
		pm_, Addr(p), Addr(p) + 4 * kPage,
		[&] { ASSERT_EQ(0, madvise(p, 4 * kPage, MADV_DONTNEED)); },
		&got);
	EXPECT_EQ(Pages(Addr(p), {{2, 3}}), got) << Show(got, Addr(p));
	EXPECT_EQ(0, p[2 * kPage]);
	munmap(p, 4 * kPage);
	close(fd);
}

TEST_P(PagemapTest, SparseGigabyteIsCheap)
{
	const uint64_t len = 1ULL << 30;
	char *p = (char *)mmap(nullptr, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
	std::vector<mrr_range> got;
	size_t resident = 0;

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, madvise(p, len, MADV_NOHUGEPAGE));
	p[0] = 1;
	p[100 << 20] = 1;
	p[len - 1] = 1;
	DiffAround(
		pm_, Addr(p), Addr(p) + len,
		[&] { ASSERT_EQ(0, madvise(p, len, MADV_DONTNEED)); }, &got,
		&resident);
	EXPECT_EQ(3u, resident);
	// The gaps were empty before and after, so the three pages merge.
	EXPECT_EQ(Pages(Addr(p), {{0, len / kPage}}), got)
		<< Show(got, Addr(p));
	munmap(p, len);
}

TEST_P(PagemapTest, ManyRunsNeedSeveralScans)
{
	const int n = 2048; // 1024 separate runs: more than one scan reply
	char *p = MapAnon(n);
	std::vector<mrr_range> got;
	size_t resident = 0;

	ASSERT_NE(nullptr, p);
	for (int i = 0; i < n; i += 2)
		p[i * kPage] = 1;
	DiffAround(
		pm_, Addr(p), Addr(p) + n * kPage,
		[&] {
			// Keep every eighth page: 256 kept pages, 256 ranges.
			for (int i = 0; i < n; i += 8)
				ASSERT_EQ(0, madvise(p + i * kPage, 6 * kPage,
						     MADV_DONTNEED));
		},
		&got, &resident);
	EXPECT_EQ((size_t)n / 2, resident);
	ASSERT_EQ((size_t)n / 8, got.size());
	for (int k = 0; k < n / 8; k++)
		EXPECT_EQ(Pages(Addr(p), {{8 * k, 8 * k + 5}})[0], got[k])
			<< "range " << k;
	munmap(p, n * kPage);
}

TEST_P(PagemapTest, StoppedChildRunsTheSeed)
{
	char *p = MapAnon(3); // untouched: the child's pages are its own
	ASSERT_NE(nullptr, p);
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		p[0] = 42;
		p[2 * kPage] = 42;
		if (Lock(p + kPage, kPage) != 0)
			_exit(errno == EPERM || errno == ENOMEM
				      ? SEED_LOCK_UNAVAILABLE
				      : SEED_LOCK);
		raise(SIGSTOP);
		int ret = madvise(p, 3 * kPage, MADV_DONTNEED);
		if (ret != -1 || errno != EINVAL)
			_exit(SEED_MADVISE);
		raise(SIGSTOP);
		_exit(p[0] == 0 && p[2 * kPage] == 42 ? SEED_OK : SEED_CONTENT);
	}

	mrr_pagemap *pm = nullptr;
	mrr_page_snapshot *before = nullptr, *after = nullptr;
	mrr_range *ranges = nullptr;
	int status;
	long n = -1;

	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	if (WIFEXITED(status) && WEXITSTATUS(status) == SEED_LOCK_UNAVAILABLE)
		GTEST_SKIP() << "mlock not allowed here";
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(0, mrr_pagemap_open(pid, &pm));
	ApplyMode(pm, GetParam());
	EXPECT_EQ(0, mrr_pagemap_snapshot(pm, Addr(p), Addr(p) + 3 * kPage,
					  &before));
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(0, mrr_pagemap_snapshot(pm, Addr(p), Addr(p) + 3 * kPage,
					  &after));
	kill(pid, SIGCONT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(SEED_OK, WEXITSTATUS(status));
	if (before && after)
		n = mrr_pagemap_dropped(before, after, &ranges);
	ASSERT_EQ(1, n);
	EXPECT_EQ(Pages(Addr(p), {{0, 1}})[0], ranges[0]);
	EXPECT_EQ(3u, mrr_page_snapshot_resident(before));
	EXPECT_EQ(2u, mrr_page_snapshot_resident(after));
	free(ranges);
	mrr_page_snapshot_free(before);
	mrr_page_snapshot_free(after);
	mrr_pagemap_close(pm);
	munmap(p, 3 * kPage);
}

TEST_P(PagemapTest, RangePastTheAddressSpaceIsEmpty)
{
	mrr_page_snapshot *s = nullptr;
	const uint64_t top = 1ULL << 47;

	ASSERT_EQ(0, mrr_pagemap_snapshot(pm_, top - 2 * kPage, top + 2 * kPage,
					  &s));
	EXPECT_EQ(0u, mrr_page_snapshot_resident(s));
	mrr_page_snapshot_free(s);
}

INSTANTIATE_TEST_SUITE_P(Modes, PagemapTest,
			 ::testing::Values(Mode{true, true}, Mode{false, true},
					   Mode{true, false},
					   Mode{false, false}),
			 ModeName);

TEST(Pagemap, ProbesMatchTheKernelAndCredentials)
{
	mrr_pagemap *pm = nullptr;
	struct utsname u;
	int major = 0, minor = 0;

	ASSERT_EQ(0, mrr_pagemap_open(getpid(), &pm));
	ASSERT_EQ(0, uname(&u));
	ASSERT_EQ(2, sscanf(u.release, "%d.%d", &major, &minor));
	if (major > 6 || (major == 6 && minor >= 7)) {
		EXPECT_TRUE(mrr_pagemap_has_scan(pm));
	}
	// CAP_SYS_ADMIN is bit 21 of CapEff.
	FILE *f = fopen("/proc/self/status", "r");
	ASSERT_NE(nullptr, f);
	char line[256];
	unsigned long long capeff = 0;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "CapEff: %llx", &capeff);
	fclose(f);
	EXPECT_EQ((bool)(capeff & (1ULL << 21)), mrr_pagemap_pfn_readable(pm));
	mrr_pagemap_disable_scan(pm);
	EXPECT_FALSE(mrr_pagemap_has_scan(pm));
	mrr_pagemap_disable_pfn(pm);
	EXPECT_FALSE(mrr_pagemap_pfn_readable(pm));
	mrr_pagemap_close(pm);
}

TEST(Pagemap, OpenFailsForMissingTask)
{
	mrr_pagemap *pm = (mrr_pagemap *)1;
	// pid_max never reaches this, so no such task.
	EXPECT_EQ(-ENOENT, mrr_pagemap_open(0x7ffffff0, &pm));
	EXPECT_EQ(nullptr, pm);
	mrr_pagemap_close(nullptr);
	mrr_page_snapshot_free(nullptr);
}

TEST(Pagemap, SnapshotRejectsBadRanges)
{
	mrr_pagemap *pm = nullptr;
	mrr_page_snapshot *s = nullptr;

	ASSERT_EQ(0, mrr_pagemap_open(getpid(), &pm));
	EXPECT_EQ(-EINVAL, mrr_pagemap_snapshot(pm, 0x10001, 0x20000, &s));
	EXPECT_EQ(-EINVAL, mrr_pagemap_snapshot(pm, 0x20000, 0x10000, &s));
	EXPECT_EQ(nullptr, s);
	ASSERT_EQ(0, mrr_pagemap_snapshot(pm, 0x10000, 0x10000, &s));
	EXPECT_EQ(0u, mrr_page_snapshot_resident(s));
	mrr_page_snapshot_free(s);
	mrr_pagemap_close(pm);
}

TEST(Pagemap, UnprivilegedReaderStillFindsTheSeedDrop)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to switch to an unprivileged user";
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		mrr_pagemap *pm = nullptr;
		std::vector<mrr_range> got;
		uint64_t base = 0;

		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(20);
		// Changing uid made us non-dumpable, which would hide our
		// own /proc files from us.
		prctl(PR_SET_DUMPABLE, 1);
		if (mrr_pagemap_open(getpid(), &pm))
			_exit(21);
		if (mrr_pagemap_pfn_readable(pm))
			_exit(22);
		SeedResult r = RunSeed(pm, &got, &base);
		if (r != SEED_OK)
			_exit(r);
		if (got.size() != 1 || got[0].start != base ||
		    got[0].end != base + kPage)
			_exit(23);
		mrr_pagemap_close(pm);
		_exit(0);
	}
	int status;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == SEED_LOCK_UNAVAILABLE)
		GTEST_SKIP() << "mlock not allowed for the unprivileged user";
	EXPECT_EQ(0, WEXITSTATUS(status))
		<< "20 setres*id, 21 open, 22 PFNs readable, 23 wrong "
		   "ranges, else a SeedResult";
}

// Diff rules on hand-made entries.
const uint64_t P = 1ULL << 63, S = 1ULL << 62;

std::vector<mrr_range> DiffEntries(const std::vector<uint64_t> &b,
				   const std::vector<uint64_t> &a)
{
	mrr_page_snapshot *before = nullptr, *after = nullptr;
	mrr_range *ranges = nullptr;
	std::vector<mrr_range> out;

	EXPECT_EQ(0, mrr_page_snapshot_from_entries(0x100000, b.data(),
						    b.size(), &before));
	EXPECT_EQ(0, mrr_page_snapshot_from_entries(0x100000, a.data(),
						    a.size(), &after));
	long n = mrr_pagemap_dropped(before, after, &ranges);
	EXPECT_GE(n, 0);
	if (n > 0)
		out.assign(ranges, ranges + n);
	else
		EXPECT_EQ(nullptr, ranges);
	free(ranges);
	mrr_page_snapshot_free(before);
	mrr_page_snapshot_free(after);
	return out;
}

TEST(PagemapDiff, FrameRules)
{
	const uint64_t b = 0x100000;
	// Same frame kept; new frame dropped; gone dropped.
	EXPECT_EQ(Pages(b, {{1, 3}}),
		  DiffEntries({P | 5, P | 6, P | 7}, {P | 5, P | 9, 0}));
	// Swap entry changed: dropped; same swap entry: kept.
	EXPECT_EQ(Pages(b, {{0, 1}}),
		  DiffEntries({S | 0x40, S | 0x60}, {S | 0x80, S | 0x60}));
	// Reclaimed to swap or swapped in: content kept.
	EXPECT_TRUE(DiffEntries({P | 5, S | 0x40}, {S | 0x20, P | 8}).empty());
	// Frames that read as zero (no CAP_SYS_ADMIN) never differ.
	EXPECT_TRUE(DiffEntries({P, P, S}, {P, P, S}).empty());
	// Other bits (exclusive, file, soft-dirty) do not matter.
	EXPECT_TRUE(DiffEntries({P | (1ULL << 56) | 5}, {P | (1ULL << 61) | 5})
			    .empty());
	// A page that was never resident is never dropped.
	EXPECT_TRUE(DiffEntries({0, 0}, {0, P | 3}).empty());
}

TEST(PagemapDiff, MergeRules)
{
	const uint64_t b = 0x100000;
	// Gaps empty before and after merge.
	EXPECT_EQ(Pages(b, {{0, 5}}),
		  DiffEntries({P | 1, 0, 0, P | 2, P | 3}, {0, 0, 0, 0, 0}));
	// A kept page splits.
	EXPECT_EQ(Pages(b, {{0, 1}, {2, 3}}),
		  DiffEntries({P | 1, P | 2, P | 3}, {0, P | 2, 0}));
	// A kept page inside a gap splits too.
	EXPECT_EQ(
		Pages(b, {{0, 1}, {4, 5}}),
		DiffEntries({P | 1, 0, P | 2, 0, P | 3}, {0, 0, P | 2, 0, 0}));
	// A page that appeared in a gap splits.
	EXPECT_EQ(Pages(b, {{0, 1}, {3, 4}}),
		  DiffEntries({P | 1, 0, 0, P | 3}, {0, 0, P | 7, 0}));
	// Trailing and leading empty pages are not included.
	EXPECT_EQ(Pages(b, {{2, 3}}),
		  DiffEntries({0, 0, P | 1, 0}, {0, 0, 0, 0}));
}

TEST(PagemapDiff, RejectsDifferentRanges)
{
	mrr_page_snapshot *a = nullptr, *b = nullptr, *c = nullptr;
	mrr_range *ranges = (mrr_range *)1;
	uint64_t e[2] = {P | 1, P | 2};

	ASSERT_EQ(0, mrr_page_snapshot_from_entries(0x1000, e, 2, &a));
	ASSERT_EQ(0, mrr_page_snapshot_from_entries(0x1000, e, 1, &b));
	EXPECT_EQ(-EINVAL, mrr_pagemap_dropped(a, b, &ranges));
	EXPECT_EQ(nullptr, ranges);
	EXPECT_EQ(-EINVAL, mrr_page_snapshot_from_entries(0x1001, e, 2, &c));
	EXPECT_EQ(nullptr, c);
	mrr_page_snapshot_free(a);
	mrr_page_snapshot_free(b);
}

} // namespace
