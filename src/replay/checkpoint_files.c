/* Snapshots of the replay's tmpdir files (checkpoint_files.h). */
#define _GNU_SOURCE
#include "replay/checkpoint_files.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int snap_name(char *buf, size_t len, unsigned id, const char *name)
{
	int n = snprintf(buf, len, CP_FILES_PREFIX "%u-%s", id, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Zeroes [off, off+len) of fd, keeping the pages of private mappings that
 * were copied on write (a hole punch does not take those away; truncating
 * would). */
static int zero_range(int fd, off_t off, off_t len)
{
	static const char zeros[65536];

	if (len <= 0 ||
	    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off,
		      len) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	while (len > 0) {
		ssize_t n = pwrite(fd, zeros,
				   len < (off_t)sizeof(zeros) ? (size_t)len
							      : sizeof(zeros),
				   off);
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += n;
		len -= n;
	}
	return 0;
}

/* Copies up to len bytes at off from in to out with pread/pwrite: the
 * number copied, or -1 with errno set. */
static ssize_t copy_plain(int in, int out, off_t off, off_t len)
{
	char buf[65536];
	ssize_t n, w;

	n = pread(in, buf, len < (off_t)sizeof(buf) ? (size_t)len : sizeof(buf),
		  off);
	if (n <= 0)
		return n;
	w = pwrite(out, buf, (size_t)n, off);
	if (w < 0)
		return -1;
	return w;
}

int cp_file_overwrite(int in, int out)
{
	off_t data, hole, end = 0;
	struct stat si, so;
	int err;

	if (fstat(in, &si) < 0 || fstat(out, &so) < 0)
		return -errno;
	for (;; end = hole) {
		data = lseek(in, end, SEEK_DATA);
		if (data < 0 && errno != ENXIO)
			return -errno;
		if (data < 0)
			data = si.st_size; /* a hole up to the end */
		err = zero_range(out, end,
				 (data < so.st_size ? data : so.st_size) - end);
		if (err || data >= si.st_size)
			break;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return -errno;
		while (data < hole) {
			off_t o_in = data, o_out = data;
			ssize_t n = copy_file_range(in, &o_in, out, &o_out,
						    (size_t)(hole - data), 0);
			/* EXDEV: another file system (a trace on a tmpfs,
			 * the copies under /tmp) */
			if (n < 0 && (errno == EXDEV || errno == EINVAL ||
				      errno == ENOSYS || errno == EOPNOTSUPP))
				n = copy_plain(in, out, data, hole - data);
			if (n <= 0)
				return n < 0 ? -errno : -EIO;
			data += n;
		}
	}
	if (err)
		return err;
	if (so.st_size != si.st_size && ftruncate(out, si.st_size) < 0)
		return -errno;
	return so.st_size > si.st_size ? 1 : 0;
}

static int copy_at(int dir_fd, const char *from, const char *to, bool create,
		   uint64_t *bytes)
{
	int in, out, err;
	struct stat st;

	in = openat(dir_fd, from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0)
		return -errno;
	out = openat(dir_fd, to,
		     O_WRONLY | O_CLOEXEC | O_NOFOLLOW |
			     (create ? O_CREAT | O_EXCL : 0),
		     0600);
	if (out < 0) {
		err = -errno;
		goto out_close_in;
	}
	err = cp_file_overwrite(in, out);
	if (err < 0 && create)
		unlinkat(dir_fd, to, 0);
	if (err >= 0 && bytes && fstat(out, &st) == 0)
		*bytes += (uint64_t)st.st_blocks * 512;
	close(out);
out_close_in:
	close(in);
	return err;
}

static bool is_snapshot(const char *name)
{
	return !strncmp(name, CP_FILES_PREFIX, strlen(CP_FILES_PREFIX));
}

/* Whether files a and b (names in dir_fd) hold the same bytes. */
static bool same_content(int dir_fd, const char *a, const char *b)
{
	static char ba[65536], bb[65536];
	int fa = openat(dir_fd, a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW),
	    fb = openat(dir_fd, b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat sa, sb;
	bool same = fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 &&
		    fstat(fb, &sb) == 0 && sa.st_size == sb.st_size;

	for (off_t off = 0; same && off < sa.st_size; off += sizeof(ba)) {
		ssize_t na = pread(fa, ba, sizeof(ba), off),
			nb = pread(fb, bb, sizeof(bb), off);

		same = na > 0 && na == nb && !memcmp(ba, bb, (size_t)na);
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

int cp_files_save(struct cp_files *f, const char *tmpdir, unsigned id,
		  unsigned prev_id, uint64_t *bytes)
{
	char prev[NAME_MAX + 1];
	char snap[NAME_MAX + 1];
	struct dirent *de;
	int dir_fd, err = 0;
	DIR *d;

	f->id = id;
	f->names = NULL;
	f->n = 0;
	if (!tmpdir[0])
		return 0;
	d = opendir(tmpdir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	dir_fd = dirfd(d);
	while (!err && (de = readdir(d))) {
		char(*g)[NAME_MAX + 1];

		if (de->d_type != DT_REG || is_snapshot(de->d_name))
			continue;
		err = snap_name(snap, sizeof(snap), id, de->d_name);
		if (err)
			break;
		g = realloc(f->names, (f->n + 1) * sizeof(*g));
		if (!g) {
			err = -ENOMEM;
			break;
		}
		f->names = g;
		snprintf(f->names[f->n], sizeof(f->names[0]), "%s", de->d_name);
		/* unchanged since the last snapshot (most are: the copies of
		 * the libraries): a second name for that one */
		if (prev_id &&
		    !snap_name(prev, sizeof(prev), prev_id, de->d_name) &&
		    same_content(dir_fd, de->d_name, prev) &&
		    linkat(dir_fd, prev, dir_fd, snap, 0) == 0) {
			f->n++;
			continue;
		}
		err = copy_at(dir_fd, de->d_name, snap, true, bytes);
		if (!err)
			f->n++;
	}
	closedir(d);
	if (err)
		cp_files_free(f, tmpdir);
	return err;
}

int cp_files_restore(const struct cp_files *f, const char *tmpdir)
{
	char snap[NAME_MAX + 1];
	int dir_fd, err = 0, shrunk = 0;
	size_t i;

	if (!tmpdir[0] || !f->n)
		return 0;
	dir_fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return -errno;
	for (i = 0; err >= 0 && i < f->n; i++) {
		err = snap_name(snap, sizeof(snap), f->id, f->names[i]);
		if (!err)
			err = copy_at(dir_fd, snap, f->names[i], false, NULL);
		if (err > 0)
			shrunk = 1;
	}
	close(dir_fd);
	return err < 0 ? err : shrunk;
}

void cp_files_free(struct cp_files *f, const char *tmpdir)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < f->n; i++)
		if (snprintf(path, sizeof(path), "%s/" CP_FILES_PREFIX "%u-%s",
			     tmpdir, f->id, f->names[i]) < (int)sizeof(path))
			unlink(path);
	free(f->names);
	f->names = NULL;
	f->n = 0;
}
