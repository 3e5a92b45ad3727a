/* mrr dump: print a trace's events, their memory effects and statistics. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "cli/dump_stats.h"
#include "cli/trust.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/sbuf_records.h"
#include "dump/dump.h"
#include "mrr/trace.h"
#include "syscalls/table.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char help[] =
	"usage: mrr dump [OPTIONS] [TRACE] [EVENTS...]\n"
	"\n"
	"Prints the events of TRACE (default: the latest trace), one line per\n"
	"event: number, tid, kind, then for syscalls the call with decoded\n"
	"arguments, its result (= -1 EINVAL on failure) and whether it was\n"
	"traced or buffered; for madvise the dropped ranges, locked ranges "
	"met\n"
	"and the precision of the drop detection. Backtraces recorded with\n"
	"`mrr record --backtrace` print indented under their event.\n"
	"\n"
	"EVENTS selects events: N, N-M, N- (to the end) or `end` (the last\n"
	"event); give several to select more. An existing directory is always\n"
	"taken as TRACE.\n"
	"\n"
	"  -m, --maps        show the mappings each event created or removed\n"
	"      --maps-at N   print the whole memory map after event N (of the\n"
	"                    task of event N, or of -t TID) and stop\n"
	"  -b, --buffer      show the records of each syscall buffer flush\n"
	"  -p, --memory      show the memory each event wrote, as hex\n"
	"  -s, --stats       print statistics instead of events: events by\n"
	"                    kind and by syscall, bytes raw and compressed,\n"
	"                    stored files\n"
	"  -t, --tid TID     only events of task TID (repeatable), after a\n"
	"                    line saying which process it belongs to\n"
	"      --json        one JSON object per line (schema:\n"
	"                    trace-format/DUMP-JSON.md)\n"
	"      --stable      mask what changes from one recording to the "
	"next,\n"
	"                    so that dumps of two recordings compare equal:\n"
	"                    tids are numbered 1, 2... in order of "
	"appearance;\n"
	"                    addresses print as REGION+0xOFF (exe, interp,\n"
	"                    heap, stack (from the initial stack pointer), "
	"mrr,\n"
	"                    mapN for the N-th mapping the program made) or\n"
	"                    0xADDR when outside any known region, small\n"
	"                    numbers below 0x10000 unchanged; stored files as\n"
	"                    file#N; rdtsc values as TSC, time() results as\n"
	"                    TIME; madvise's precision as PRECISION;\n"
	"                    the executable's directory as .../;\n"
	"                    ranges as [START +0xSIZE). -p data is not masked\n"
	"  -f, --force       read the valid prefix of an incomplete trace\n"
	"  -h, --help        this help\n"
	"\n"
	"Exit status: 0 done; 64 usage; 65 trace unreadable, incomplete or\n"
	"corrupt; 66 trace not found.\n";

#define MAX_RANGES 64
#define MAX_TIDS   64
#define SEQ_END	   UINT64_MAX /* `end`, resolved once the last event is known */

struct range {
	uint64_t lo, hi; /* inclusive; SEQ_END for `end` */
};

struct dump_opts {
	unsigned dump_flags;
	unsigned reader_flags;
	bool stats;
	bool maps_at_set;
	uint64_t maps_at;
	struct range ranges[MAX_RANGES];
	int nranges;
	int32_t tids[MAX_TIDS];
	bool said[MAX_TIDS]; /* whose task tids[i] is: printed */
	int ntids;
	const char *trace;
};

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && *out != UINT64_MAX;
}

static bool parse_seq(const char *s, uint64_t *out)
{
	if (!strcmp(s, "end")) {
		*out = SEQ_END;
		return true;
	}
	return parse_u64(s, out);
}

/* "N", "N-M", "N-", "end", "N-end". */
static bool parse_range(const char *s, struct range *r)
{
	char buf[64];
	char *dash;

	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (!dash) {
		if (!parse_seq(buf, &r->lo))
			return false;
		r->hi = r->lo;
		return true;
	}
	*dash = 0;
	if (!parse_u64(buf, &r->lo))
		return false;
	if (!dash[1]) {
		r->hi = SEQ_END - 1; /* open: to the last event */
		return true;
	}
	return parse_seq(dash + 1, &r->hi);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int parse_args(int argc, char **argv, struct dump_opts *o)
{
	static const struct option opts[] = {
		{"maps", no_argument, 0, 'm'},
		{"maps-at", required_argument, 0, 'M'},
		{"buffer", no_argument, 0, 'b'},
		{"memory", no_argument, 0, 'p'},
		{"stats", no_argument, 0, 's'},
		{"tid", required_argument, 0, 't'},
		{"json", no_argument, 0, 'j'},
		{"stable", no_argument, 0, 'S'},
		{"force", no_argument, 0, 'f'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	uint64_t v;
	int c, i;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":mbpst:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->dump_flags |= MRR_DUMP_MAPS;
			break;
		case 'M':
			if (!parse_u64(optarg, &o->maps_at))
				return usage_error("dump",
						   "--maps-at needs an event "
						   "number, not '%s'",
						   optarg);
			o->maps_at_set = true;
			break;
		case 'b':
			o->dump_flags |= MRR_DUMP_BUFFER;
			break;
		case 'p':
			o->dump_flags |= MRR_DUMP_MEM;
			break;
		case 's':
			o->stats = true;
			break;
		case 't':
			if (!parse_u64(optarg, &v) || v == 0 || v > INT32_MAX)
				return usage_error("dump",
						   "-t needs a thread id, not "
						   "'%s'",
						   optarg);
			if (o->ntids == MAX_TIDS)
				return usage_error("dump",
						   "at most %d -t options",
						   MAX_TIDS);
			o->tids[o->ntids++] = (int32_t)v;
			break;
		case 'j':
			o->dump_flags |= MRR_DUMP_JSON;
			break;
		case 'S':
			o->dump_flags |= MRR_DUMP_STABLE;
			break;
		case 'f':
			o->reader_flags |= MRR_READER_FORCE;
			break;
		case 'h':
			fputs(help, stdout);
			return -1;
		case ':':
			return usage_error("dump", "option %s needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("dump", "unknown option %s",
					   argv[optind - 1]);
		}
	}
	for (i = optind; i < argc; i++) {
		struct range r;

		/* A directory is a trace even if its name looks like an event
		 * number; otherwise event syntax wins. */
		if (!is_dir(argv[i]) && parse_range(argv[i], &r)) {
			if (r.hi != SEQ_END && r.lo != SEQ_END && r.hi < r.lo)
				return usage_error("dump",
						   "event range %s ends before "
						   "it starts",
						   argv[i]);
			if (o->nranges == MAX_RANGES)
				return usage_error("dump",
						   "at most %d event ranges",
						   MAX_RANGES);
			o->ranges[o->nranges++] = r;
			continue;
		}
		if (o->trace)
			return usage_error("dump",
					   "'%s' is neither an event range "
					   "nor the only TRACE (already got "
					   "%s)",
					   argv[i], o->trace);
		o->trace = argv[i];
	}
	if (o->maps_at_set && o->stats)
		return usage_error("dump", "--maps-at and -s do not combine");
	return 0;
}

/* Events the trace holds: from the commit, else by reading it through. */
static int count_events(const char *dir, mrr_trace_reader *r, unsigned flags,
			uint64_t *count)
{
	mrr_trace_reader *r2;
	struct mrr_event ev;
	uint64_t n = 0;
	int err;

	*count = mrr_trace_event_count(r);
	if (*count)
		return 0;
	err = mrr_trace_open(dir, flags, &r2, NULL, 0);
	if (err)
		return err;
	while ((err = mrr_trace_next(r2, &ev)) > 0)
		n++;
	mrr_trace_close(r2);
	*count = n;
	return err < 0 ? err : 0;
}

static bool seq_selected(const struct dump_opts *o, uint64_t seq)
{
	int i;

	if (!o->nranges)
		return true;
	for (i = 0; i < o->nranges; i++)
		if (seq >= o->ranges[i].lo && seq <= o->ranges[i].hi)
			return true;
	return false;
}

static bool tid_selected(const struct dump_opts *o, int32_t tid)
{
	int i;

	if (!o->ntids)
		return true;
	for (i = 0; i < o->ntids; i++)
		if (o->tids[i] == tid)
			return true;
	return false;
}

/* dump -t: before the first event of each selected task, which process
 * it belongs to (threads share their process's pid, the leader's tid). */
static void say_whose(struct dump_opts *o, struct mrr_dump *d, int32_t tid)
{
	int32_t pid;
	bool thread;
	int i;

	for (i = 0; i < o->ntids && o->tids[i] != tid; i++)
		;
	if (i == o->ntids || o->said[i])
		return;
	o->said[i] = true;
	pid = mrr_dump_task_pid(d, tid, &thread);
	if (!pid)
		pid = tid; /* the first task, before its exec event */
	if (pid != tid)
		printf("# tid %d: a thread of pid %d\n",
		       mrr_dump_tid_name(d, tid), mrr_dump_tid_name(d, pid));
	else
		printf("# tid %d: pid %d%s\n", mrr_dump_tid_name(d, tid),
		       mrr_dump_tid_name(d, pid),
		       thread ? ", its main thread" : "");
}

static uint64_t last_selected(const struct dump_opts *o)
{
	uint64_t hi = 0;
	int i;

	if (!o->nranges)
		return UINT64_MAX;
	for (i = 0; i < o->nranges; i++)
		if (o->ranges[i].hi > hi)
			hi = o->ranges[i].hi;
	return hi;
}

/* After the last event: why a recording that did not complete stopped. */
static void print_end(const mrr_trace_reader *r)
{
	enum mrr_trace_end end;
	const char *why = NULL;

	if (mrr_trace_committed(r, &end, &why) && end != MRR_END_COMPLETE)
		printf("# recording %s: %s\n",
		       end == MRR_END_INTERRUPTED ? "interrupted" : "stopped",
		       why && why[0] ? why : "no reason given");
}

/* ---- the verb ---- */

/* dump runs nothing of a trace: it says whose it is and goes on. */
static void warn_if_foreign(const char *dir)
{
	char desc[PATH_MAX + 128];
	uid_t owner;

	if (trace_owner_check(dir, &owner, desc, sizeof(desc)) == 1)
		mrr_err("warning: %s", desc);
}

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = {0};
	struct dump_stats *st = NULL;
	struct dump_tasks *tasks = NULL;
	char dir[PATH_MAX], msg[1024];
	mrr_trace_reader *r = NULL;
	struct mrr_dump *d = NULL;
	struct mrr_event ev;
	uint64_t count = 0, stop_after, read = 0;
	bool need_end = false, maps_done = false;
	int32_t maps_tid = 0;
	int err, i, ret = MRR_EXIT_OK;

	err = parse_args(argc, argv, &o);
	if (err)
		return err < 0 ? MRR_EXIT_OK : err;
	if (resolve_trace_arg(o.trace, dir, sizeof(dir)) < 0)
		return MRR_EXIT_NOINPUT;
	warn_if_foreign(dir);
	/* memory stays bounded whatever one event holds */
	o.reader_flags |= MRR_READER_STREAM;
	err = mrr_trace_open(dir, o.reader_flags, &r, msg, sizeof(msg));
	if (err) {
		mrr_err("%s", msg);
		return err == -ENOENT || err == -ENOTDIR ? MRR_EXIT_NOINPUT
							 : MRR_EXIT_DATAERR;
	}
	for (i = 0; i < o.nranges; i++)
		if (o.ranges[i].lo == SEQ_END || o.ranges[i].hi == SEQ_END)
			need_end = true;
	if (need_end) {
		err = count_events(dir, r, o.reader_flags, &count);
		if (err) {
			mrr_err("cannot count the events of trace %s: %s", dir,
				mrr_trace_strerror(err));
			ret = MRR_EXIT_DATAERR;
			goto out_close;
		}
		for (i = 0; i < o.nranges; i++) {
			if (o.ranges[i].lo == SEQ_END)
				o.ranges[i].lo = count ? count - 1 : 0;
			if (o.ranges[i].hi == SEQ_END)
				o.ranges[i].hi = count ? count - 1 : 0;
		}
	}
	if (mrr_dump_create(r, o.dump_flags, &d)) {
		mrr_err("out of memory");
		ret = MRR_EXIT_OSERR;
		goto out_close;
	}
	if (o.stats) {
		st = dump_stats_new();
		tasks = dump_tasks_new();
		if (!st || !tasks) {
			mrr_err("out of memory");
			ret = MRR_EXIT_OSERR;
			goto out_close;
		}
	}
	stop_after = o.stats ? UINT64_MAX : last_selected(&o);
	if (o.maps_at_set)
		stop_after = o.maps_at;

	while ((err = mrr_trace_next(r, &ev)) > 0) {
		bool show;

		read++;
		if (ev.kind == MRR_EV_BACKTRACE) {
			/* shown with the event it belongs to */
			uint64_t owner = mrr_dump_backtrace_owner(d, &ev);

			show = tid_selected(&o, ev.tid) &&
			       (seq_selected(&o, ev.seq) ||
				(owner != UINT64_MAX &&
				 seq_selected(&o, owner)));
		} else {
			show = tid_selected(&o, ev.tid) &&
			       seq_selected(&o, ev.seq);
		}
		if (st && show) {
			dump_stats_add(st, &ev);
			dump_tasks_add(tasks, &ev);
		}
		if (show && !st && o.ntids && !o.maps_at_set &&
		    !(o.dump_flags & MRR_DUMP_JSON))
			say_whose(&o, d, ev.tid);
		if (st && dump_stats_note_paths(st, r, &ev) < 0) {
			mrr_err("out of memory");
			ret = MRR_EXIT_OSERR;
			goto out_close;
		}
		mrr_dump_event(d, &ev,
			       show && !st && !o.maps_at_set ? stdout : NULL);
		if (o.maps_at_set && ev.seq == o.maps_at) {
			maps_tid = o.ntids ? o.tids[0] : ev.tid;
			if (!(o.dump_flags & MRR_DUMP_JSON))
				printf("memory map of task %d after event "
				       "%" PRIu64 ":\n",
				       mrr_dump_tid_name(d, maps_tid),
				       o.maps_at);
			if (mrr_dump_print_maps(d, maps_tid, stdout)) {
				mrr_err("task %d has no memory map after event "
					"%" PRIu64,
					maps_tid, o.maps_at);
				ret = MRR_EXIT_USAGE;
			}
			maps_done = true;
		}
		/* stop early, but let a trailing backtrace event through */
		if (ev.seq > stop_after && ev.kind != MRR_EV_BACKTRACE)
			break;
		if (maps_done)
			break;
	}
	fflush(stdout);
	if (err < 0) {
		mrr_err("%s", mrr_trace_error_message(r));
		ret = MRR_EXIT_DATAERR;
		goto out_close;
	}
	if (o.maps_at_set && !maps_done) {
		mrr_err("trace %s has no event %" PRIu64 " (it has %" PRIu64
			" events)",
			dir, o.maps_at, read);
		ret = MRR_EXIT_USAGE;
		goto out_close;
	}
	if (st)
		dump_stats_print(st, r, o.dump_flags & MRR_DUMP_JSON, tasks, d);
	else if (!(o.dump_flags & MRR_DUMP_JSON) && stop_after == UINT64_MAX)
		print_end(r);
	if ((o.reader_flags & MRR_READER_FORCE) &&
	    !mrr_trace_committed(r, NULL, NULL) && err == 0 &&
	    stop_after == UINT64_MAX) {
		const char *why = mrr_trace_error_message(r);

		mrr_err("trace %s is incomplete: %" PRIu64
			" events were salvaged from it%s%s",
			dir, read, why[0] ? "; " : "", why);
	}
out_close:
	mrr_dump_free(d);
	dump_stats_free(st);
	dump_tasks_free(tasks);
	mrr_trace_close(r);
	return ret;
}
