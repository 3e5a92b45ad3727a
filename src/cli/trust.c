/* Checks made before a trace is used (trust.h). A trace holds a program and
 * everything it was fed; replaying someone else's runs their program as the
 * caller, so that needs the caller's explicit consent. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli/trust.h"

#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "mrr/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void describe_owner(const char *path, const char *what, uid_t uid,
			   char *desc, size_t desclen)
{
	struct passwd *pw = getpwuid(uid);

	if (pw && pw->pw_name)
		snprintf(desc, desclen, "%s%s belongs to user %s (uid %u)",
			 what, path, pw->pw_name, (unsigned)uid);
	else
		snprintf(desc, desclen, "%s%s belongs to uid %u", what, path,
			 (unsigned)uid);
}

int trace_owner_check(const char *path, uid_t *owner, char *desc,
		      size_t desclen)
{
	static const char *const inside[] = {"header", "events"};
	uid_t me = geteuid();
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0)
		return -errno;
	if (S_ISLNK(st.st_mode) && st.st_uid != me) {
		*owner = st.st_uid;
		describe_owner(path, "the link ", st.st_uid, desc, desclen);
		return 1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	if (st.st_uid != me) {
		close(fd);
		*owner = st.st_uid;
		describe_owner(path, "trace ", st.st_uid, desc, desclen);
		return 1;
	}
	for (size_t i = 0; i < sizeof(inside) / sizeof(*inside); i++) {
		if (fstatat(fd, inside[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_uid != me) {
			char what[PATH_MAX + 16];

			close(fd);
			*owner = st.st_uid;
			snprintf(what, sizeof(what), "%s/%s", path, inside[i]);
			describe_owner(what, "the file ", st.st_uid, desc,
				       desclen);
			return 1;
		}
	}
	close(fd);
	return 0;
}

/* The path the first exec event ran, NUL-terminated inside extra, or NULL. */
static const char *exec_path(const struct mrr_event *ev)
{
	const char *p;
	size_t n;

	if (ev->kind != MRR_EV_EXEC ||
	    ev->extra_len <= sizeof(struct mrr_exec_extra))
		return NULL;
	p = (const char *)ev->extra + sizeof(struct mrr_exec_extra);
	n = ev->extra_len - sizeof(struct mrr_exec_extra);
	return memchr(p, 0, n) ? p : NULL;
}

/* The interpreter a "#!" script names, into buf; false if path is no
 * script (or cannot be read). */
static bool script_interpreter(const char *path, char *buf, size_t buflen)
{
	char head[256];
	ssize_t n;
	size_t len;
	char *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return false;
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	head[n] = 0;
	for (p = head + 2; *p == ' ' || *p == '\t'; p++)
		;
	len = strcspn(p, " \t\n");
	if (!len || len >= buflen)
		return false;
	memcpy(buf, p, len);
	buf[len] = 0;
	return true;
}

/* Whether the program the header names is the one the first exec ran: the
 * same path; or (the header keeps the path as given, e.g. /bin/sh) a link
 * that resolves to it here; or a "#!" script whose interpreter (through at
 * most four scripts, as the kernel allows) is it. A header program that is
 * not on this machine cannot be checked, and passes. */
static bool same_program(const char *header_exe, const char *exec_exe)
{
	char cur[PATH_MAX], real[PATH_MAX], interp[PATH_MAX];
	int depth;

	if (access(header_exe, F_OK) < 0)
		return true;
	snprintf(cur, sizeof(cur), "%s", header_exe);
	for (depth = 0; depth < 5; depth++) {
		if (!strcmp(cur, exec_exe))
			return true;
		if (!realpath(cur, real))
			return false;
		if (!strcmp(real, exec_exe))
			return true;
		if (!script_interpreter(real, interp, sizeof(interp)))
			return false;
		snprintf(cur, sizeof(cur), "%s", interp);
	}
	return false;
}

static int check_first_exec(const char *path, bool force)
{
	const struct mrr_trace_info *info;
	mrr_trace_reader *r;
	struct mrr_event ev;
	const char *ran;
	char msg[512];
	int err, ret = 0;

	err = mrr_trace_open(path,
			     MRR_READER_STREAM | (force ? MRR_READER_FORCE : 0),
			     &r, msg, sizeof(msg));
	if (err)
		return 0; /* the replay opens it again and says why */
	info = mrr_trace_info(r);
	err = mrr_trace_next(r, &ev);
	if (err <= 0)
		goto out_close; /* no events, or the replay reports it */
	ran = exec_path(&ev);
	if (!ran) {
		mrr_err("trace %s is corrupt: its first event (pid %d) is not "
			"the exec of the program",
			path, ev.tid);
		ret = MRR_EXIT_DATAERR;
	} else if (!info->exe || !same_program(info->exe, ran)) {
		mrr_err("trace %s is inconsistent: its header names the "
			"program %s but its first event (pid %d) executes %s",
			path, info->exe ? info->exe : "(none)", ev.tid, ran);
		ret = MRR_EXIT_DATAERR;
	}
out_close:
	mrr_trace_close(r);
	return ret;
}

int replay_preflight(const char *path, bool allow_foreign, bool force)
{
	char desc[PATH_MAX + 128];
	uid_t owner;
	int err;

	err = trace_owner_check(path, &owner, desc, sizeof(desc));
	if (err == 1 && !allow_foreign) {
		mrr_err("%s: replaying it would run that user's program as "
			"you; give --allow-foreign to replay it anyway",
			desc);
		return MRR_EXIT_NOPERM;
	}
	if (err == 1)
		mrr_err("warning: %s; replaying it as you "
			"(--allow-foreign)",
			desc);
	return check_first_exec(path, force);
}
