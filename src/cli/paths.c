#include "cli/cli.h"
#include "core/log.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
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

int resolve_trace_arg(const char *arg, char *buf, size_t buflen)
{
	char root[PATH_MAX];
	struct stat st;
	int err;

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
