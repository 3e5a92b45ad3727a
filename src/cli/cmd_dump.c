/* mrr dump: print a trace's events, their memory effects and statistics. */
#define _GNU_SOURCE
#include "cli/cli.h"
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
	"  -t, --tid TID     only events of task TID (repeatable)\n"
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

/* ---- statistics ---- */

/* Slots of stats.by_nr past the table: numbers the table does not have,
 * then mrr's own calls (the syscall buffer's, src/syscallbuf/abi.h). */
#define SLOT_OTHER    MRR_SYSCALL_NR_MAX
#define SLOT_REGISTER (MRR_SYSCALL_NR_MAX + 1)
#define SLOT_FLUSH    (MRR_SYSCALL_NR_MAX + 2)
#define SLOT_DESYNC   (MRR_SYSCALL_NR_MAX + 3)
#define NSLOTS	      (MRR_SYSCALL_NR_MAX + 4)

struct stats {
	uint64_t events;
	uint64_t by_kind[MRR_EV_KIND_MAX + 2]; /* last: unknown kinds */
	uint64_t by_nr[NSLOTS];		       /* traced and buffered */
	uint64_t buffered_by_nr[NSLOTS];
	/* syscalls: traced events, and buffered calls (the records of the
	 * MRR_EV_BUFFER flushes, and events flagged buffered) */
	uint64_t traced, buffered, skipped;
	uint64_t buffer_calls; /* records in MRR_EV_BUFFER flushes */
	uint64_t writes, write_bytes, extra_bytes;
	uint64_t first_seq, last_seq;
	uint64_t sched_by_reason[6]; /* MRR_EV_SCHED by mrr_sched_reason */
};

static int nr_slot(int64_t nr)
{
	if (nr >= 0 && nr < MRR_SYSCALL_NR_MAX)
		return (int)nr;
	switch (nr) {
	case MRR_SYSCALL_REGISTER:
		return SLOT_REGISTER;
	case MRR_SYSCALL_FLUSH:
		return SLOT_FLUSH;
	case MRR_SYSCALL_DESYNC:
		return SLOT_DESYNC;
	}
	return SLOT_OTHER;
}

static const char *slot_name(int slot, char *buf, size_t buflen)
{
	const char *name = mrr_syscall_name(slot);

	switch (slot) {
	case SLOT_OTHER:
		return "other numbers";
	case SLOT_REGISTER:
		return "mrr_buffer_register";
	case SLOT_FLUSH:
		return "mrr_buffer_flush";
	case SLOT_DESYNC:
		return "mrr_buffer_desync";
	}
	if (name)
		return name;
	snprintf(buf, buflen, "syscall_%d", slot);
	return buf;
}

/* Counts the buffered calls of one flush by syscall. */
static void stats_add_flush(struct stats *s, const struct mrr_event *ev)
{
	const struct mrr_syscallbuf_rec *rec;
	const uint8_t *data;
	uint8_t *recs;
	size_t off = 0;
	char err[128];

	if (!ev->extra_len)
		return;
	recs = malloc(ev->extra_len); /* 8-aligned, as the walker wants */
	if (!recs)
		return;
	memcpy(recs, ev->extra, ev->extra_len);
	while (sbuf_next(recs, ev->extra_len, &off, &rec, &data, err,
			 sizeof(err)) > 0) {
		s->by_nr[nr_slot(rec->nr)]++;
		s->buffered_by_nr[nr_slot(rec->nr)]++;
		s->buffered++;
	}
	free(recs);
}

static void stats_add(struct stats *s, const struct mrr_event *ev)
{
	uint32_t i;

	if (!s->events)
		s->first_seq = ev->seq;
	s->last_seq = ev->seq;
	s->events++;
	s->by_kind[ev->kind >= 1 && ev->kind <= MRR_EV_KIND_MAX
			   ? ev->kind
			   : MRR_EV_KIND_MAX + 1]++;
	if (ev->kind == MRR_EV_SYSCALL) {
		s->by_nr[nr_slot(ev->nr)]++;
		if (ev->flags & MRR_EVF_BUFFERED) {
			s->buffered++;
			s->buffered_by_nr[nr_slot(ev->nr)]++;
		} else {
			s->traced++;
		}
		if (ev->flags & MRR_EVF_SKIPPED)
			s->skipped++;
	}
	if (ev->kind == MRR_EV_SCHED)
		s->sched_by_reason[ev->result >= 1 && ev->result <= 5
					   ? ev->result
					   : 0]++;
	if (ev->kind == MRR_EV_BUFFER) {
		s->buffer_calls += ev->args[1];
		stats_add_flush(s, ev);
	}
	s->writes += ev->nwrites;
	for (i = 0; i < ev->nwrites; i++)
		s->write_bytes += ev->writes[i].len;
	s->extra_bytes += ev->extra_len;
}

static const char *kind_label(int k)
{
	static const char *const names[] = {
		NULL,	"exec",	  "syscall",   "signal",  "rdtsc",
		"exit", "buffer", "backtrace", "preempt", "sched",
	};

	if (k >= 1 && k <= MRR_EV_KIND_MAX &&
	    (size_t)k < sizeof(names) / sizeof(names[0]))
		return names[k];
	return "unknown";
}

struct file_list {
	char (*names)[MRR_STORED_NAME_MAX];
	uint64_t *sizes;
	size_t n, cap;
};

static int collect_file(const char *name, uint64_t size, void *arg)
{
	struct file_list *l = arg;

	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		void *a = realloc(l->names, ncap * sizeof(*l->names));

		if (!a)
			return -ENOMEM;
		l->names = a;
		a = realloc(l->sizes, ncap * sizeof(*l->sizes));
		if (!a)
			return -ENOMEM;
		l->sizes = a;
		l->cap = ncap;
	}
	snprintf(l->names[l->n], MRR_STORED_NAME_MAX, "%s", name);
	l->sizes[l->n++] = size;
	return 0;
}

static void sort_files(struct file_list *l)
{
	size_t i, j;

	/* insertion sort: a trace stores tens of files, not thousands */
	for (i = 1; i < l->n; i++) {
		for (j = i; j > 0 && strcmp(l->names[j - 1], l->names[j]) > 0;
		     j--) {
			char name[MRR_STORED_NAME_MAX];
			uint64_t size = l->sizes[j];

			memcpy(name, l->names[j], sizeof(name));
			memcpy(l->names[j], l->names[j - 1], sizeof(name));
			memcpy(l->names[j - 1], name, sizeof(name));
			l->sizes[j] = l->sizes[j - 1];
			l->sizes[j - 1] = size;
		}
	}
}

static int cmp_nr_count(const void *a, const void *b, void *arg)
{
	const uint64_t *by = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (by[x] != by[y])
		return by[x] > by[y] ? -1 : 1;
	return x - y;
}

static const char *end_name(const mrr_trace_reader *r)
{
	enum mrr_trace_end end;
	const char *msg;

	if (!mrr_trace_committed(r, &end, &msg))
		return "incomplete";
	switch (end) {
	case MRR_END_COMPLETE:
		return "complete";
	case MRR_END_INTERRUPTED:
		return "interrupted";
	case MRR_END_ERROR:
		return "error";
	}
	return "unknown";
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

static void print_stats(const struct stats *s, const mrr_trace_reader *r,
			bool json)
{
	struct mrr_trace_stats ts;
	struct file_list files = {0};
	int order[NSLOTS], n = 0, i;
	uint64_t syscalls = s->traced + s->buffered;
	double ratio;
	size_t f;

	mrr_trace_stats(r, &ts);
	if (mrr_trace_for_each_file(r, collect_file, &files) < 0)
		files.n = 0;
	sort_files(&files);
	for (i = 0; i < NSLOTS; i++)
		if (s->by_nr[i])
			order[n++] = i;
	qsort_r(order, (size_t)n, sizeof(order[0]), cmp_nr_count,
		(void *)s->by_nr);
	ratio = ts.compressed_bytes
			? (double)ts.raw_bytes / (double)ts.compressed_bytes
			: 0.0;

	if (json) {
		bool first = true;

		printf("{\"kind\":\"stats\",\"status\":\"%s\",\"events\":"
		       "%" PRIu64 ",\"by_kind\":{",
		       end_name(r), s->events);
		for (i = 1; i <= MRR_EV_KIND_MAX + 1; i++) {
			if (!s->by_kind[i])
				continue;
			printf("%s\"%s\":%" PRIu64, first ? "" : ",",
			       kind_label(i), s->by_kind[i]);
			first = false;
		}
		printf("},\"syscalls\":%" PRIu64 ",\"traced\":%" PRIu64
		       ",\"buffered\":%" PRIu64 ",\"skipped\":%" PRIu64
		       ",\"by_syscall\":{",
		       syscalls, s->traced, s->buffered, s->skipped);
		for (i = 0; i < n; i++) {
			char other[32];

			printf("%s\"%s\":%" PRIu64, i ? "," : "",
			       slot_name(order[i], other, sizeof(other)),
			       s->by_nr[order[i]]);
		}
		printf("},\"buffered_calls\":%" PRIu64 ",\"writes\":%" PRIu64
		       ",\"write_bytes\":%" PRIu64 ",\"chunks\":%" PRIu64
		       ",\"raw_bytes\":%" PRIu64
		       ",\"compressed_bytes\":%" PRIu64 ",\"ratio\":%.3f"
		       ",\"file_bytes\":%" PRIu64 ",\"files\":[",
		       s->buffer_calls, s->writes, s->write_bytes, ts.chunks,
		       ts.raw_bytes, ts.compressed_bytes, ratio, ts.file_bytes);
		for (f = 0; f < files.n; f++)
			printf("%s{\"name\":\"%s\",\"size\":%" PRIu64 "}",
			       f ? "," : "", files.names[f], files.sizes[f]);
		printf("]}\n");
		goto out;
	}
	printf("status: %s\n", end_name(r));
	{
		enum mrr_trace_end end;
		const char *why = NULL;

		if (mrr_trace_committed(r, &end, &why) && why && why[0])
			printf("stopped: %s\n", why);
	}
	printf("events: %" PRIu64 "\n", s->events);
	for (i = 1; i <= MRR_EV_KIND_MAX + 1; i++)
		if (s->by_kind[i])
			printf("  %-20s %10" PRIu64 "\n", kind_label(i),
			       s->by_kind[i]);
	printf("syscalls: %" PRIu64 " (%" PRIu64 " traced, %" PRIu64
	       " buffered, %" PRIu64 " skipped)\n",
	       syscalls, s->traced, s->buffered, s->skipped);
	for (i = 0; i < n; i++) {
		char other[32];

		printf("  %-20s %10" PRIu64,
		       slot_name(order[i], other, sizeof(other)),
		       s->by_nr[order[i]]);
		if (s->buffered_by_nr[order[i]])
			printf("  (%" PRIu64 " buffered)",
			       s->buffered_by_nr[order[i]]);
		printf("\n");
	}
	if (s->by_kind[MRR_EV_SCHED]) {
		static const char *const why[] = {
			"other",	   "blocking syscall",
			"timeslice",	   "stalled in a syscall",
			"held for output", "leader exit",
		};

		printf("thread switches: %" PRIu64 "\n",
		       s->by_kind[MRR_EV_SCHED]);
		for (i = 0; i < 6; i++)
			if (s->sched_by_reason[i])
				printf("  %-28s %" PRIu64 "\n", why[i],
				       s->sched_by_reason[i]);
	}
	printf("buffered calls: %" PRIu64 " in %" PRIu64 " flushes\n",
	       s->buffer_calls, s->by_kind[MRR_EV_BUFFER]);
	printf("memory writes: %" PRIu64 " ranges, %" PRIu64 " bytes\n",
	       s->writes, s->write_bytes);
	printf("stream: %" PRIu64 " chunks, %" PRIu64 " bytes raw, %" PRIu64
	       " bytes compressed, ratio %.2f\n",
	       ts.chunks, ts.raw_bytes, ts.compressed_bytes, ratio);
	printf("stored files: %zu, %" PRIu64 " bytes\n", files.n,
	       ts.file_bytes);
	for (f = 0; f < files.n; f++)
		printf("  %-34s %12" PRIu64 "\n", files.names[f],
		       files.sizes[f]);
out:
	free(files.names);
	free(files.sizes);
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
	struct stats *st = NULL;
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
		st = calloc(1, sizeof(*st));
		if (!st) {
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
		if (st && show)
			stats_add(st, &ev);
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
		print_stats(st, r, o.dump_flags & MRR_DUMP_JSON);
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
	free(st);
	mrr_trace_close(r);
	return ret;
}
