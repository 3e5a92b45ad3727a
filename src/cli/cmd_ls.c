/* mrr ls: the traces in the default trace directory. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "mrr/trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char help[] =
	"usage: mrr ls\n"
	"\n"
	"Lists the traces in $MRR_TRACE_DIR (else\n"
	"${XDG_DATA_HOME:-$HOME/.local/share}/mrr), oldest first: name,\n"
	"program, start date, events, size on disk and state:\n"
	"  complete      the recorded program ran to its end\n"
	"  interrupted   the user stopped the recording (Ctrl-C)\n"
	"  error         the recorder stopped on an error\n"
	"  incomplete    never committed (the recorder was killed or\n"
	"                crashed); events counts what `dump -f` salvages\n"
	"  corrupt       the header or commit is damaged\n"
	"The latest trace is marked with *. A trace of another user has\n"
	"\", owner NAME\" after its state.\n"
	"\n"
	"Exit status: 0 listed (also when there are no traces); 64 usage;\n"
	"66 the trace directory cannot be read.\n";

struct row {
	char name[NAME_MAX + 1];
	char program[64];
	char state[16];
	char owner[40]; /* another user's name, or "" */
	int64_t start_ns;
	uint64_t events;
	uint64_t bytes;
	int latest;
	int have_events;
};

/* Bytes on disk under path (blocks, not apparent sizes). */
static uint64_t disk_usage(int dirfd, const char *name)
{
	struct stat st;
	uint64_t sum = 0;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	if (!S_ISDIR(st.st_mode))
		return (uint64_t)st.st_blocks * 512;
	sum = (uint64_t)st.st_blocks * 512;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return sum;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return sum;
	}
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sum += disk_usage(fd, e->d_name);
	}
	closedir(d);
	return sum;
}

static void human_size(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, len, "%" PRIu64 "B", n);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
}

static void describe(const char *root, const char *name, struct row *row)
{
	char path[PATH_MAX + NAME_MAX + 2], msg[512];
	const struct mrr_trace_info *info;
	mrr_trace_reader *r;
	enum mrr_trace_end end;
	struct mrr_event ev;
	const char *slash;
	int err;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	err = mrr_trace_open(path, MRR_READER_FORCE | MRR_READER_STREAM, &r,
			     msg, sizeof(msg));
	if (err) {
		snprintf(row->state, sizeof(row->state), "%s",
			 err == MRR_E_VERSION ? "other-version" : "corrupt");
		snprintf(row->program, sizeof(row->program), "?");
		return;
	}
	info = mrr_trace_info(r);
	slash = info->exe ? strrchr(info->exe, '/') : NULL;
	snprintf(row->program, sizeof(row->program), "%s",
		 slash	     ? slash + 1
		 : info->exe ? info->exe
			     : "?");
	row->start_ns = info->start_time_ns;
	if (mrr_trace_committed(r, &end, NULL)) {
		row->events = mrr_trace_event_count(r);
		row->have_events = 1;
		snprintf(row->state, sizeof(row->state), "%s",
			 end == MRR_END_COMPLETE      ? "complete"
			 : end == MRR_END_INTERRUPTED ? "interrupted"
						      : "error");
	} else {
		/* what dump -f would show */
		while ((err = mrr_trace_next(r, &ev)) > 0)
			row->events++;
		row->have_events = err == 0;
		snprintf(row->state, sizeof(row->state), "incomplete");
	}
	mrr_trace_close(r);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether name looks like a trace: it has a header or an event stream (a
 * recorder killed before its header reached the disk leaves only that). */
static int is_trace_dir(const char *root, const char *name)
{
	char path[PATH_MAX + NAME_MAX + 16];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/header", root, name);
	if (lstat(path, &st) == 0)
		return 1;
	snprintf(path, sizeof(path), "%s/%s/events", root, name);
	return lstat(path, &st) == 0;
}

int cmd_ls(int argc, char **argv)
{
	char root[PATH_MAX], latest[PATH_MAX], link[PATH_MAX + 16];
	struct row *rows = NULL, *row;
	size_t n = 0, cap = 0, i;
	struct dirent *e;
	const char *latest_name = NULL;
	ssize_t len;
	DIR *d;
	int fd;

	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			fputs(help, stdout);
			return MRR_EXIT_OK;
		}
		if (argv[1][0] == '-')
			return usage_error("ls", "unknown option %s", argv[1]);
		return usage_error("ls", "ls takes no arguments");
	}
	if (default_trace_root(root, sizeof(root)) < 0) {
		mrr_err("the trace directory's path is too long");
		return MRR_EXIT_NOINPUT;
	}
	d = opendir(root);
	if (!d) {
		if (errno == ENOENT) {
			printf("no traces in %s\n", root);
			return MRR_EXIT_OK;
		}
		mrr_err("cannot read the trace directory %s: %s", root,
			strerror(errno));
		return MRR_EXIT_NOINPUT;
	}
	snprintf(link, sizeof(link), "%s/latest-trace", root);
	len = readlink(link, latest, sizeof(latest) - 1);
	if (len > 0) {
		latest[len] = 0;
		latest_name = strrchr(latest, '/');
		latest_name = latest_name ? latest_name + 1 : latest;
	}
	fd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		struct stat st;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "latest-trace"))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (!is_trace_dir(root, e->d_name))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;

			row = realloc(rows, ncap * sizeof(*rows));
			if (!row) {
				closedir(d);
				free(rows);
				mrr_err("out of memory");
				return MRR_EXIT_OSERR;
			}
			rows = row;
			cap = ncap;
		}
		row = &rows[n++];
		memset(row, 0, sizeof(*row));
		snprintf(row->name, sizeof(row->name), "%s", e->d_name);
		row->bytes = disk_usage(fd, e->d_name);
		row->latest = latest_name && !strcmp(latest_name, e->d_name);
		if (st.st_uid != geteuid()) {
			struct passwd *pw = getpwuid(st.st_uid);

			if (pw && pw->pw_name)
				snprintf(row->owner, sizeof(row->owner), "%s",
					 pw->pw_name);
			else
				snprintf(row->owner, sizeof(row->owner),
					 "uid %u", (unsigned)st.st_uid);
		}
		describe(root, e->d_name, row);
	}
	closedir(d);
	if (!n) {
		printf("no traces in %s\n", root);
		free(rows);
		return MRR_EXIT_OK;
	}
	qsort(rows, n, sizeof(*rows), cmp_rows);
	printf("  %-24s %-20s %-19s %10s %8s  %s\n", "NAME", "PROGRAM", "DATE",
	       "EVENTS", "SIZE", "STATE");
	for (i = 0; i < n; i++) {
		char date[32] = "-", size[16], events[24] = "?";
		time_t t;
		struct tm tm;

		row = &rows[i];
		if (row->start_ns > 0) {
			t = (time_t)(row->start_ns / 1000000000);
			if (localtime_r(&t, &tm))
				strftime(date, sizeof(date),
					 "%Y-%m-%d %H:%M:%S", &tm);
		}
		human_size(row->bytes, size, sizeof(size));
		if (row->have_events)
			snprintf(events, sizeof(events), "%" PRIu64,
				 row->events);
		printf("%c %-24s %-20s %-19s %10s %8s  %s%s%s\n",
		       row->latest ? '*' : ' ', row->name, row->program, date,
		       events, size, row->state,
		       row->owner[0] ? ", owner " : "", row->owner);
	}
	free(rows);
	return MRR_EXIT_OK;
}
