/* mrr dump -s: statistics of a trace's events, and its stored files with
 * the paths they had at record. */
#define _GNU_SOURCE
#include "cli/dump_stats.h"

#include "core/events.h"
#include "core/file_paths.h"
#include "core/proc.h"
#include "core/sbuf_records.h"
#include "dump/dump.h"
#include "syscalls/table.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots of stats.by_nr past the table: numbers the table does not have,
 * then mrr's own calls (the syscall buffer's, src/syscallbuf/abi.h). */
#define SLOT_OTHER    MRR_SYSCALL_NR_MAX
#define SLOT_REGISTER (MRR_SYSCALL_NR_MAX + 1)
#define SLOT_FLUSH    (MRR_SYSCALL_NR_MAX + 2)
#define SLOT_DESYNC   (MRR_SYSCALL_NR_MAX + 3)
#define NSLOTS	      (MRR_SYSCALL_NR_MAX + 4)

struct dump_stats {
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
	struct file_paths *paths;    /* stored files' paths at record */
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
static void stats_add_flush(struct dump_stats *s, const struct mrr_event *ev)
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

void dump_stats_add(struct dump_stats *s, const struct mrr_event *ev)
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

void dump_stats_print(const struct dump_stats *s, const mrr_trace_reader *r,
		      bool json, const struct dump_tasks *tasks,
		      struct mrr_dump *d)
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
		for (f = 0; f < files.n; f++) {
			size_t others = 0;
			const char *path = file_paths_of_name(
				s->paths, files.names[f], &others);

			printf("%s{\"name\":\"%s\",\"size\":%" PRIu64
			       ",\"path\":",
			       f ? "," : "", files.names[f], files.sizes[f]);
			if (path) {
				putchar('"');
				mrr_dump_json_string(stdout, path,
						     strlen(path));
				putchar('"');
			} else
				printf("null");
			printf(",\"other_paths\":%zu}", others);
		}
		printf("]");
		if (tasks) {
			printf(",\"tasks\":[");
			dump_tasks_print(tasks, d, true);
			printf("]");
		}
		printf("}\n");
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
	for (f = 0; f < files.n; f++) {
		size_t others = 0;
		const char *path =
			file_paths_of_name(s->paths, files.names[f], &others);

		printf("  %-34s %12" PRIu64 "  %s", files.names[f],
		       files.sizes[f], path ? path : "(path not recorded)");
		if (others)
			printf(" (and %zu other path%s)", others,
			       others == 1 ? "" : "s");
		printf("\n");
	}
	if (dump_tasks_count(tasks) > 1)
		dump_tasks_print(tasks, d, false);
out:
	free(files.names);
	free(files.sizes);
}

struct dump_stats *dump_stats_new(void)
{
	struct dump_stats *s = calloc(1, sizeof(*s));

	if (s && !(s->paths = file_paths_new())) {
		free(s);
		s = NULL;
	}
	return s;
}

void dump_stats_free(struct dump_stats *s)
{
	if (!s)
		return;
	file_paths_free(s->paths);
	free(s);
}

int dump_stats_note_paths(struct dump_stats *s, const mrr_trace_reader *r,
			  const struct mrr_event *ev)
{
	char stored[PATH_MAX], interp[PATH_MAX];
	const char *interp_path = NULL;

	if (ev->kind == MRR_EV_EXEC &&
	    ev->extra_len >= sizeof(struct mrr_exec_extra)) {
		struct mrr_exec_extra x;

		/* the interpreter's path is the one the executable names */
		memcpy(&x, ev->extra, sizeof(x));
		x.exe_file[sizeof(x.exe_file) - 1] = 0;
		if (x.interp_file[0] &&
		    !mrr_trace_file_path(r, x.exe_file, stored,
					 sizeof(stored)) &&
		    elf_interp(stored, interp, sizeof(interp)) == 0 &&
		    interp[0])
			interp_path = interp;
	}
	return file_paths_note(s->paths, ev, interp_path);
}
