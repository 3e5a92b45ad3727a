/* Creating and removing a trace directory through directory fds, so that
 * nothing another user renames or plants beside or inside it is followed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/format.h"
#include "trace/io.h"

int trace_mkdir_at(int parent_fd, const char *name)
{
	/* The mode argument is filtered by the umask; a trace is 0700 under
	 * any umask, and mrr is single-threaded here. */
	mode_t old = umask(077);
	int ret = mkdirat(parent_fd, name, 0700);

	ret = ret ? -errno : 0;
	umask(old);
	return ret;
}

int trace_open_new_dir(int parent_fd, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, probe, ret = 0;

	fd = openat(parent_fd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Between our mkdir and this open, whoever may write the parent
	 * could have put another directory there: it must be ours and empty,
	 * or we would write into (and on failure empty) someone else's. */
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (st.st_uid != geteuid()) {
		ret = -EEXIST;
		goto out_close;
	}
	probe = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (probe < 0) {
		ret = -errno;
		goto out_close;
	}
	d = fdopendir(probe);
	if (!d) {
		ret = -errno;
		close(probe);
		goto out_close;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			ret = -EEXIST;
			break;
		}
	}
	closedir(d);
	/* A default ACL on the parent overrides the umask; chmod masks it. */
	if (!ret && fchmod(fd, 0700))
		ret = -errno;
	if (!ret)
		return fd;
out_close:
	close(fd);
	return ret;
}

int trace_create_file_at(int dir_fd, const char *name, mode_t mode)
{
	int fd = openat(dir_fd, name,
			O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			mode);

	if (fd < 0)
		return -errno;
	/* The umask may have taken bits away; it must not decide. */
	if (fchmod(fd, mode)) {
		int ret = -errno;

		close(fd);
		unlinkat(dir_fd, name, 0);
		return ret;
	}
	return fd;
}

/* One pass over the directory open at dir_fd, unlinking every entry except
 * subdirectories (unlinkat removes a link itself, never its target).
 * Returns how many it removed. */
static int unlink_pass(int dir_fd)
{
	struct dirent *de;
	DIR *d;
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int n = 0;

	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dir_fd, de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Unlinking while reading a directory may make readdir skip entries: pass
 * again until a pass finds nothing left to remove. */
static void empty_dir_fd(int dir_fd)
{
	for (int i = 0; i < 16 && unlink_pass(dir_fd) > 0; i++)
		;
}

void trace_remove_dir_fds(int parent_fd, const char *name, int dir_fd,
			  int files_fd)
{
	struct stat mine, there;

	if (files_fd >= 0) {
		empty_dir_fd(files_fd);
		/* Only the directory we made, not whatever now has its name:
		 * AT_REMOVEDIR does not follow a link, and fails on one. */
		if (fstat(files_fd, &mine) == 0 &&
		    fstatat(dir_fd, TRACE_FILES_DIR, &there,
			    AT_SYMLINK_NOFOLLOW) == 0 &&
		    mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
			unlinkat(dir_fd, TRACE_FILES_DIR, AT_REMOVEDIR);
	}
	if (dir_fd < 0)
		return;
	empty_dir_fd(dir_fd);
	if (parent_fd >= 0 && name && fstat(dir_fd, &mine) == 0 &&
	    fstatat(parent_fd, name, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
	    mine.st_dev == there.st_dev && mine.st_ino == there.st_ino)
		unlinkat(parent_fd, name, AT_REMOVEDIR);
}
