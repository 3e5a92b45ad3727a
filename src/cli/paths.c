#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli/cli.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int default_trace_root(char *buf, size_t buflen)
{
	const char *d = getenv("MRR_TRACE_DIR"), *x, *h;
	int n;

	if (d && d[0])
		n = snprintf(buf, buflen, "%s", d);
	else if ((x = getenv("XDG_DATA_HOME")) && x[0])
		n = snprintf(buf, buflen, "%s/mrr", x);
	else {
		h = getenv("HOME");
		if (!h || !h[0]) {
			/* Never a shared directory such as /tmp: whoever made
			 * it first would choose what latest-trace replays. */
			struct passwd *pw = getpwuid(getuid());

			h = pw && pw->pw_dir && pw->pw_dir[0] == '/'
				    ? pw->pw_dir
				    : NULL;
		}
		if (!h)
			return -ENOENT;
		n = snprintf(buf, buflen, "%s/.local/share/mrr", h);
	}
	return n < 0 || (size_t)n >= buflen ? -ENAMETOOLONG : 0;
}

void trace_root_error(int err)
{
	if (err == -ENOENT)
		mrr_err("there is no home directory to keep traces in; set "
			"MRR_TRACE_DIR or HOME, or give the trace's path");
	else
		mrr_err("the trace directory's path (from MRR_TRACE_DIR, "
			"XDG_DATA_HOME or HOME) is too long");
}

/* True when users other than the caller may belong to group gid (those whose
 * primary group it is are not listed: the group must be the caller's own). */
static bool group_shared(gid_t gid)
{
	struct passwd *pw;
	struct group *gr;

	if (gid != getegid())
		return true;
	gr = getgrgid(gid);
	pw = getpwuid(geteuid());
	if (!gr || !pw)
		return true;
	for (char **m = gr->gr_mem; m && *m; m++)
		if (strcmp(*m, pw->pw_name))
			return true;
	return false;
}

int open_trace_root(const char *root, int for_record, int *fd_out)
{
	struct stat st, lt;
	uid_t me = geteuid();
	bool others, trusted_owner;
	int fd, err;

	*fd_out = -1;
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		mrr_err("cannot open the trace directory %s: %s", root,
			strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	/* Its owner can always change it; root is trusted anyway. */
	trusted_owner = st.st_uid == me || st.st_uid == 0;
	others = !trusted_owner || (st.st_mode & S_IWOTH) ||
		 ((st.st_mode & S_IWGRP) && group_shared(st.st_gid));
	if (others && !(trusted_owner && (st.st_mode & S_ISVTX))) {
		mrr_err("refusing the trace directory %s: other users can "
			"write to it and so choose what %s (use a directory "
			"only you can write, or a sticky one such as /tmp)",
			root,
			for_record ? "gets recorded into"
				   : "`mrr replay` runs");
		close(fd);
		return -EPERM;
	}
	/* In a shared sticky directory only our own link can be trusted, and
	 * only our own can be replaced. */
	if (others &&
	    fstatat(fd, LATEST_TRACE, &lt, AT_SYMLINK_NOFOLLOW) == 0 &&
	    lt.st_uid != me) {
		mrr_err("refusing to %s %s/%s: it belongs to another user "
			"(uid %u), who would choose what `mrr replay` runs",
			for_record ? "replace" : "follow", root, LATEST_TRACE,
			(unsigned)lt.st_uid);
		close(fd);
		return -EPERM;
	}
	*fd_out = fd;
	return 0;
}

int resolve_trace_arg(const char *arg, char *buf, size_t buflen)
{
	char root[PATH_MAX];
	struct stat st;
	int err, fd;

	if (arg) {
		if ((size_t)snprintf(buf, buflen, "%s", arg) >= buflen) {
			mrr_err("the trace's path is too long");
			return -ENAMETOOLONG;
		}
		return 0;
	}
	err = default_trace_root(root, sizeof(root));
	if (!err &&
	    (size_t)snprintf(buf, buflen, "%s/latest-trace", root) >= buflen)
		err = -ENAMETOOLONG;
	if (err) {
		trace_root_error(err);
		return err;
	}
	if (lstat(buf, &st) < 0) {
		mrr_err("no trace given and there is no latest trace in %s",
			root);
		return -ENOENT;
	}
	err = open_trace_root(root, 0, &fd);
	if (err)
		return err;
	close(fd);
	return 0;
}

const char *preload_library_path(void)
{
	static char path[PATH_MAX];
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	snprintf(path, sizeof(path), "%s/../lib/mrr/libmrr_preload.so", self);
	if (access(path, R_OK) < 0)
		return NULL;
	return path;
}
