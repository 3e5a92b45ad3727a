/* core/file_paths: the recorded paths of stored files, from exec and mmap
 * events, and malformed payloads ignored. */
#include <gtest/gtest.h>

#include <string.h>
#include <sys/syscall.h>

#include <string>
#include <vector>

extern "C" {
#include "core/events.h"
#include "core/file_paths.h"
}

namespace
{

std::vector<uint8_t> mmap_extra(const char *name, uint32_t ident,
				const std::string &tail)
{
	struct mrr_mmap_extra x = {};

	strncpy(x.file, name, sizeof(x.file) - 1);
	x.ident = ident;
	std::vector<uint8_t> v(sizeof(x) + tail.size());
	memcpy(v.data(), &x, sizeof(x));
	memcpy(v.data() + sizeof(x), tail.data(), tail.size());
	return v;
}

struct mrr_event mmap_event(const std::vector<uint8_t> &extra)
{
	struct mrr_event ev = {};

	ev.kind = MRR_EV_SYSCALL;
	ev.nr = SYS_mmap;
	ev.extra = extra.data();
	ev.extra_len = (uint32_t)extra.size();
	return ev;
}

TEST(FilePaths, MmapAndExec)
{
	struct file_paths *fp = file_paths_new();
	ASSERT_NE(fp, nullptr);
	auto a = mmap_extra("aaaaaaaaaaaaaaaa-10", 1,
			    std::string("/usr/lib/libx.so\0", 17));
	auto b = mmap_extra("aaaaaaaaaaaaaaaa-10", 2,
			    std::string("/opt/copy/libx.so\0", 18));
	struct mrr_event ea = mmap_event(a), eb = mmap_event(b);
	ASSERT_EQ(file_paths_note(fp, &ea, NULL), 0);
	ASSERT_EQ(file_paths_note(fp, &eb, NULL), 0);
	ASSERT_EQ(file_paths_note(fp, &ea, NULL), 0); /* again: no new entry */

	struct mrr_exec_extra x = {};
	strcpy(x.exe_file, "bbbbbbbbbbbbbbbb-20");
	strcpy(x.interp_file, "cccccccccccccccc-30");
	const char prog[] = "/bin/prog";
	std::vector<uint8_t> xe(sizeof(x) + sizeof(prog));
	memcpy(xe.data(), &x, sizeof(x));
	memcpy(xe.data() + sizeof(x), prog, sizeof(prog));
	struct mrr_event ev = {};
	ev.kind = MRR_EV_EXEC;
	ev.extra = xe.data();
	ev.extra_len = (uint32_t)xe.size();
	ASSERT_EQ(file_paths_note(fp, &ev, "/lib64/ld.so"), 0);

	size_t others = 9;
	EXPECT_STREQ(file_paths_of_name(fp, "aaaaaaaaaaaaaaaa-10", &others),
		     "/usr/lib/libx.so");
	EXPECT_EQ(others, 1u);
	EXPECT_STREQ(file_paths_of_ident(fp, 2), "/opt/copy/libx.so");
	EXPECT_STREQ(file_paths_of_name(fp, "bbbbbbbbbbbbbbbb-20", NULL),
		     "/bin/prog");
	EXPECT_STREQ(file_paths_of_name(fp, "cccccccccccccccc-30", NULL),
		     "/lib64/ld.so");
	EXPECT_EQ(file_paths_of_name(fp, "dddddddddddddddd-40", NULL), nullptr);
	EXPECT_EQ(file_paths_of_ident(fp, 0), nullptr);
	file_paths_free(fp);
}

TEST(FilePaths, IgnoresOldAndMalformedPayloads)
{
	struct file_paths *fp = file_paths_new();
	ASSERT_NE(fp, nullptr);
	auto old = mmap_extra("aaaaaaaaaaaaaaaa-10", 1, ""); /* 80 bytes */
	auto unterminated = mmap_extra("aaaaaaaaaaaaaaaa-10", 1, "/x/y");
	auto empty = mmap_extra("aaaaaaaaaaaaaaaa-10", 1, std::string(1, '\0'));
	for (auto *v : {&old, &unterminated, &empty}) {
		struct mrr_event ev = mmap_event(*v);
		ASSERT_EQ(file_paths_note(fp, &ev, NULL), 0);
	}
	struct mrr_event ev = mmap_event(unterminated);
	EXPECT_EQ(file_paths_mmap_path(&ev), nullptr);
	ev.nr = SYS_munmap;
	EXPECT_EQ(file_paths_mmap_path(&ev), nullptr);
	EXPECT_EQ(file_paths_of_name(fp, "aaaaaaaaaaaaaaaa-10", NULL), nullptr);
	file_paths_free(fp);
	file_paths_free(NULL);
}

} // namespace
