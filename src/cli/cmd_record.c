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
#include <sys/stat.h>
#include <unistd.h>

static const char help[] =
	"usage: mrr record [-o DIR] [-n] [--sync] [--backtrace] [--] PROG "
	"[ARGS...]\n"
	"\n"
	"Runs PROG (looked up in PATH) under mrr and records a trace.\n"
	"\n"
	"  -o, --output DIR      write the trace to DIR (must not exist)\n"
	"  -n, --no-syscallbuf   trace every syscall with ptrace (slower)\n"
	"      --sync            fsync the trace before committing it, so it\n"
	"                        survives a machine crash\n"
	"      --backtrace       store call stacks at memory syscalls\n"
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

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", dir) >= sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* Picks ROOT/NAME-N for the first N not taken, and points latest-trace at
 * it. */
static int default_trace_dir(const char *prog, char *buf, size_t buflen)
{
	char root[PATH_MAX], base[NAME_MAX + 1], link[PATH_MAX + 16];
	char copy[PATH_MAX];
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
	snprintf(copy, sizeof(copy), "%s", prog);
	snprintf(base, sizeof(base), "%s", basename(copy));
	for (n = 0; n < 1000000; n++) {
		struct stat st;

		snprintf(buf, buflen, "%s/%s-%d", root, base, n);
		if (lstat(buf, &st) < 0 && errno == ENOENT)
			break;
	}
	snprintf(link, sizeof(link), "%s/latest-trace.tmp%d", root, getpid());
	unlink(link);
	snprintf(copy, sizeof(copy), "%s-%d", base, n);
	if (symlink(copy, link) == 0) {
		char final[PATH_MAX + 16];

		snprintf(final, sizeof(final), "%s/latest-trace", root);
		if (rename(link, final) < 0)
			unlink(link);
	}
	return 0;
}

/* The recording never started and its directory is gone: the latest-trace
 * link must not point at it. */
static void drop_latest_link(const char *dir)
{
	char root[PATH_MAX], link[PATH_MAX + 16], target[PATH_MAX];
	const char *base = strrchr(dir, '/');
	ssize_t n;

	if (default_trace_root(root, sizeof(root)) < 0 || !base)
		return;
	snprintf(link, sizeof(link), "%s/latest-trace", root);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = 0;
	if (strcmp(target, base + 1) == 0)
		unlink(link);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"no-syscallbuf", no_argument, 0, 'n'},
		{"sync", no_argument, 0, 's'},
		{"backtrace", no_argument, 0, 'b'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct record_opts o = {0};
	char exe[PATH_MAX], dir[PATH_MAX];
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
	if (out) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s", out) >=
		    sizeof(dir)) {
			mrr_err("cannot create trace directory %.64s...: its "
				"path is too long",
				out);
			return MRR_EXIT_CANTCREAT;
		}
	} else if (default_trace_dir(exe, dir, sizeof(dir)) < 0) {
		return MRR_EXIT_CANTCREAT;
	}
	o.trace_dir = dir;
	o.exe = exe;
	o.argv = argv + optind;
	o.preload = o.syscallbuf ? preload_library_path() : NULL;
	fprintf(stderr, "mrr: recording %s to %s\n", argv[optind], dir);
	err = mrr_record(&o);
	if (err == MRR_EXIT_NOINPUT && !out)
		drop_latest_link(dir);
	return err;
}
