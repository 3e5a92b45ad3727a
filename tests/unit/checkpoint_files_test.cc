/* Snapshots of the replay's file copies (src/replay/checkpoint_files.h):
 * restored in place, so that processes mapping a copy keep their private
 * copied-on-write pages, with holes and sizes as they were. */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

extern "C" {
#include "replay/checkpoint_files.h"
}
#include "trace_test_util.h"

using namespace trace_test;

namespace
{

const long pg = sysconf(_SC_PAGESIZE);

void put(const std::string &path, off_t off, const std::string &s)
{
	int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0600);

	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)s.size(), pwrite(fd, s.data(), s.size(), off));
	close(fd);
}

std::string get(const std::string &path, off_t off, size_t len)
{
	std::string s(len, '\0');
	int fd = open(path.c_str(), O_RDONLY);

	if (fd < 0)
		return "";
	s.resize((size_t)std::max<ssize_t>(0, pread(fd, &s[0], len, off)));
	close(fd);
	return s;
}

off_t size_of(const std::string &path)
{
	struct stat st;

	return stat(path.c_str(), &st) ? -1 : st.st_size;
}

} // namespace

TEST(CheckpointFiles, RestoreInPlaceKeepsPrivateCopiedPages)
{
	TempDir tmp;
	std::string dir = tmp.sub("replay"), f = dir + "/file-1";
	struct cp_files snap;
	uint64_t bytes = 0;

	ASSERT_EQ(0, mkdir(dir.c_str(), 0700));
	put(f, 0, std::string(4 * pg, 'a'));
	int fd = open(f.c_str(), O_RDONLY);
	ASSERT_GE(fd, 0);
	char *m = (char *)mmap(nullptr, 4 * pg, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	close(fd);
	m[pg] = 'P'; /* page 1 is now private to this mapping */

	ASSERT_EQ(0, cp_files_save(&snap, dir.c_str(), 7, 0, &bytes));
	EXPECT_GE(bytes, (uint64_t)4 * pg);
	EXPECT_EQ((size_t)1, snap.n);

	/* later: the file changes and shrinks, a new file appears */
	put(f, 0, "zzz");
	ASSERT_EQ(0, truncate(f.c_str(), 3 * pg));
	put(dir + "/file-2", 0, "new");

	EXPECT_EQ(0, cp_files_restore(&snap, dir.c_str()));
	EXPECT_EQ(4 * pg, size_of(f));
	EXPECT_EQ("aaa", get(f, 0, 3));
	EXPECT_EQ(std::string(pg, 'a'), get(f, 3 * pg, pg));
	/* the mapping sees the restored file, and kept its own page */
	EXPECT_EQ('a', m[0]);
	EXPECT_EQ('P', m[pg]);
	EXPECT_EQ('a', m[2 * pg]);
	/* a file made after the snapshot is left alone */
	EXPECT_EQ("new", get(dir + "/file-2", 0, 3));
	/* restoring again changes nothing */
	EXPECT_EQ(0, cp_files_restore(&snap, dir.c_str()));
	EXPECT_EQ('P', m[pg]);

	munmap(m, 4 * pg);
	cp_files_free(&snap, dir.c_str());
	EXPECT_EQ(-1, size_of(dir + "/" CP_FILES_PREFIX "7-file-1"));
}

TEST(CheckpointFiles, HolesAndShrinking)
{
	TempDir tmp;
	std::string dir = tmp.sub("replay"), f = dir + "/shm-3";
	struct cp_files snap;
	uint64_t bytes = 0;

	ASSERT_EQ(0, mkdir(dir.c_str(), 0700));
	put(f, 16 * pg, "tail"); /* a hole before it */
	ASSERT_EQ(0, cp_files_save(&snap, dir.c_str(), 1, 0, &bytes));
	EXPECT_LT(bytes, (uint64_t)16 * pg); /* the snapshot kept the hole */

	put(f, 0, std::string(pg, 'x')); /* data where the hole was */
	put(f, 40 * pg, "longer");	 /* and a longer file */
	EXPECT_EQ(1, cp_files_restore(&snap, dir.c_str())); /* shrank */
	EXPECT_EQ(16 * pg + 4, size_of(f));
	EXPECT_EQ(std::string(pg, '\0'), get(f, 0, pg));
	EXPECT_EQ("tail", get(f, 16 * pg, 4));
	cp_files_free(&snap, dir.c_str());
}

TEST(CheckpointFiles, NoDirectoryYet)
{
	struct cp_files snap;
	uint64_t bytes = 0;

	EXPECT_EQ(0, cp_files_save(&snap, "", 1, 0, &bytes));
	EXPECT_EQ((size_t)0, snap.n);
	EXPECT_EQ(0, cp_files_restore(&snap, ""));
	cp_files_free(&snap, "");
}

TEST(CheckpointFiles, UnchangedFilesShareTheLastSnapshot)
{
	TempDir tmp;
	std::string dir = tmp.sub("replay");
	struct cp_files one, two;
	uint64_t bytes1 = 0, bytes2 = 0;
	struct stat st;

	ASSERT_EQ(0, mkdir(dir.c_str(), 0700));
	put(dir + "/lib", 0, std::string(8 * pg, 'l'));
	put(dir + "/data", 0, "before");
	ASSERT_EQ(0, cp_files_save(&one, dir.c_str(), 1, 0, &bytes1));
	put(dir + "/data", 0, "after!");
	ASSERT_EQ(0, cp_files_save(&two, dir.c_str(), 2, 1, &bytes2));
	/* the unchanged file is one more name of the first snapshot */
	ASSERT_EQ(0, stat((dir + "/" CP_FILES_PREFIX "2-lib").c_str(), &st));
	EXPECT_EQ(2u, (unsigned)st.st_nlink);
	ASSERT_EQ(0, stat((dir + "/" CP_FILES_PREFIX "2-data").c_str(), &st));
	EXPECT_EQ(1u, (unsigned)st.st_nlink);
	EXPECT_LT(bytes2, bytes1);

	/* dropping the first leaves the second whole */
	cp_files_free(&one, dir.c_str());
	put(dir + "/lib", 0, "changed");
	put(dir + "/data", 0, "later!");
	EXPECT_EQ(0, cp_files_restore(&two, dir.c_str()));
	EXPECT_EQ(std::string(8 * pg, 'l'), get(dir + "/lib", 0, 8 * pg));
	EXPECT_EQ("after!", get(dir + "/data", 0, 6));
	cp_files_free(&two, dir.c_str());
}
