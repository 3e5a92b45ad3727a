#include "cli/cli.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "record/recorder.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrr/trace.h"

static const char help[] =
	"usage: mrr record [-o DIR] [-n] [--sync] [--backtrace] [--no-cache] "
	"[--] PROG [ARGS...]\n"
	"\n"
	"Runs PROG (looked up in PATH) under mrr and records a trace.\n"
	"\n"
	"  -o, --output DIR      write the trace to DIR (must not exist)\n"
	"  -n, --no-syscallbuf   trace every syscall with ptrace (slower)\n"
	"      --sync            fsync the trace before committing it, so it\n"
	"                        survives a machine crash\n"
	"      --backtrace       store call stacks at memory syscalls\n"
	"      --no-cache        store every file afresh, without the file\n"
	"                        cache in ${XDG_CACHE_HOME:-$HOME/.cache}/mrr\n"
	"                        (also MRR_NO_CACHE=1)\n"
	"\n"
	"Without -o the trace goes to $MRR_TRACE_DIR, else\n"
	"${XDG_DATA_HOME:-$HOME/.local/share}/mrr, as PROG-N, and the link\n"
	"latest-trace there points to it.\n"
	"\n"
	"Exit status: the program's (128+N if signal N killed it); 64 usage,\n"
	"66 program not found or not executable, 69 unsupported feature,\n"
	"71 system refused, 73 trace not writable.\n";

static int mkdir_p(const char *dir)
{
	char tmp[PATH_MAX], *p;
	mode_t old;
	int ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", dir) >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* What mrr creates here is private, as the XDG spec asks. */
	old = umask(077);
	for (p = tmp + 1; *p && !ret; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
			ret = -errno;
		*p = '/';
	}
	if (!ret && mkdir(tmp, 0700) < 0 && errno != EEXIST)
		ret = -errno;
	umask(old);
	return ret;
}

/* Where the trace went, and what must be undone if the program never ran. */
struct trace_place {
	mrr_trace_writer *w;
	char dir[PATH_MAX + NAME_MAX + 2]; /* its path, for messages */
	int root_fd; /* the default directory, or -1 with -o */
	char name[NAME_MAX + 1];
};

static int open_output(const char *out, unsigned flags, struct trace_place *pl)
{
	int err;

	if ((size_t)snprintf(pl->dir, sizeof(pl->dir), "%s", out) >=
	    sizeof(pl->dir)) {
		mrr_err("cannot create trace directory %.64s...: its path is "
			"too long",
			out);
		return -ENAMETOOLONG;
	}
	err = mrr_trace_writer_open(out, flags, &pl->w);
	if (err == -EEXIST)
		mrr_err("cannot create trace directory %s: it already exists",
			out);
	else if (err)
		mrr_err("cannot create trace directory %s: %s", out,
			strerror(-err));
	return err;
}

/* Points latest-trace in root_fd at name: a new link under a unique
 * temporary name, renamed over the old one, so that it never points
 * anywhere else, not even for a moment. */
static int point_latest(int root_fd, const char *name)
{
	char tmp[64];
	uint32_t r;
	int i, err;

	for (i = 0; i < 100; i++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint32_t)i;
		snprintf(tmp, sizeof(tmp), "latest-trace.tmp.%d.%08x",
			 (int)getpid(), r);
		if (symlinkat(name, root_fd, tmp) == 0)
			break;
		if (errno != EEXIST)
			return -errno;
	}
	if (i == 100)
		return -EEXIST;
	if (renameat(root_fd, tmp, root_fd, LATEST_TRACE)) {
		err = -errno;
		unlinkat(root_fd, tmp, 0);
		return err;
	}
	return 0;
}

/* Makes ROOT/PROG-N for the first N free (a new directory, never an
 * existing one), and points latest-trace at it. */
static int open_default(const char *prog, unsigned flags,
			struct trace_place *pl)
{
	char root[PATH_MAX], base[NAME_MAX - 10], copy[PATH_MAX];
	int err, n;

	err = default_trace_root(root, sizeof(root));
	if (err) {
		trace_root_error(err);
		return err;
	}
	err = mkdir_p(root);
	if (err) {
		mrr_err("cannot create the trace directory %s: %s", root,
			strerror(-err));
		return err;
	}
	err = open_trace_root(root, true, &pl->root_fd);
	if (err)
		return err;
	snprintf(copy, sizeof(copy), "%s", prog);
	snprintf(base, sizeof(base), "%s", basename(copy));
	for (n = 0; n < 1000000; n++) {
		snprintf(pl->name, sizeof(pl->name), "%s-%d", base, n);
		err = mrr_trace_writer_open_at(pl->root_fd, pl->name, flags,
					       &pl->w);
		if (err != -EEXIST)
			break;
	}
	snprintf(pl->dir, sizeof(pl->dir), "%s/%s", root, pl->name);
	if (err) {
		mrr_err("cannot create trace directory %s: %s", pl->dir,
			strerror(-err));
		return err;
	}
	err = point_latest(pl->root_fd, pl->name);
	if (err) {
		mrr_err("cannot point %s/%s at the new trace: %s", root,
			LATEST_TRACE, strerror(-err));
		mrr_trace_writer_remove(pl->w);
		pl->w = NULL;
	}
	return err;
}

/* The recording never started and its directory is gone: the latest-trace
 * link must not point at it. */
static void drop_latest_link(const struct trace_place *pl)
{
	char target[NAME_MAX + 2];
	ssize_t n;

	n = readlinkat(pl->root_fd, LATEST_TRACE, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = 0;
	if (strcmp(target, pl->name) == 0)
		unlinkat(pl->root_fd, LATEST_TRACE, 0);
}

/* For bench/fixedcost.sh: mrr's own peak memory, without its children's. */
static void report_rss(void)
{
	struct rusage ru;

	if (getenv("MRR_REPORT_RSS") && getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(stderr, "mrr: peak RSS %ld KiB\n", ru.ru_maxrss);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"no-syscallbuf", no_argument, 0, 'n'},
		{"sync", no_argument, 0, 's'},
		{"backtrace", no_argument, 0, 'b'},
		{"no-cache", no_argument, 0, 'C'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct record_opts o = {0};
	struct trace_place pl = {.root_fd = -1};
	char exe[PATH_MAX];
	const char *out = NULL;
	int c, err;

	o.syscallbuf = true;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			o.syscallbuf = false;
			break;
		case 's':
			o.sync = true;
			break;
		case 'b':
			o.backtrace = true;
			break;
		case 'C':
			o.no_cache = true;
			break;
		case 'h':
			fputs(help, stdout);
			return MRR_EXIT_OK;
		default:
			if (optopt == 'o')
				return usage_error(
					"record",
					"option -o needs a directory");
			return usage_error("record", "unknown option %s",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("record", "no program given");
	err = resolve_program(argv[optind], exe, sizeof(exe));
	if (err == -EISDIR) {
		mrr_err("cannot record %s: it is a directory", argv[optind]);
		return MRR_EXIT_NOINPUT;
	}
	if (err == -EACCES) {
		mrr_err("cannot record %s: it is not executable", argv[optind]);
		return MRR_EXIT_NOINPUT;
	}
	if (err) {
		mrr_err("cannot record %s: no such program%s", argv[optind],
			strchr(argv[optind], '/') ? "" : " in PATH");
		return MRR_EXIT_NOINPUT;
	}
	/* The directory exists before anything says it is being written. */
	err = out ? open_output(out, o.sync ? MRR_WRITER_SYNC : 0, &pl)
		  : open_default(exe, o.sync ? MRR_WRITER_SYNC : 0, &pl);
	if (err) {
		if (pl.root_fd >= 0)
			close(pl.root_fd);
		return MRR_EXIT_CANTCREAT;
	}
	o.writer = pl.w;
	o.trace_dir = pl.dir;
	o.exe = exe;
	o.argv = argv + optind;
	o.preload = o.syscallbuf ? preload_library_path() : NULL;
	fprintf(stderr, "mrr: recording %s to %s\n", argv[optind], pl.dir);
	err = mrr_record(&o);
	report_rss();
	if (pl.root_fd >= 0) {
		if (err == MRR_EXIT_NOINPUT)
			drop_latest_link(&pl);
		close(pl.root_fd);
	}
	return err;
}
