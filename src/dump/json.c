/* The --json form of events: one object per line, schema in
 * trace-format/DUMP-JSON.md. */
#define _GNU_SOURCE
#include "core/events.h"
#include "dump/internal.h"
#include "syscalls/table.h"

#include <inttypes.h>
#include <string.h>
#include <sys/wait.h>

static void key(struct sbuf *b, const char *k)
{
	sb_printf(b, ",\"%s\":", k);
}

static void jstr(struct sbuf *b, const char *s)
{
	sb_json_str(b, s, strlen(s));
}

/* An address as a JSON string: "0x..." or a --stable token. */
static void jaddr(struct mrr_dump *d, const struct das *as, uint64_t v,
		  struct sbuf *b)
{
	struct sbuf a = {0};

	dump_addr(d, as, v, ADDR_PLAIN, &a);
	sb_json_str(b, a.s ? a.s : "", a.len);
	sb_free(&a);
}

static void jfile(struct mrr_dump *d, const char *name, struct sbuf *b)
{
	struct sbuf a = {0};

	if (!name[0]) {
		sb_puts(b, "null");
		return;
	}
	dump_file(d, name, &a);
	sb_json_str(b, a.s ? a.s : "", a.len);
	sb_free(&a);
}

void dump_json_map(struct mrr_dump *d, const struct das *as,
		   const struct dmap *m, struct sbuf *b)
{
	char perms[5];

	dmap_perms(m, perms);
	sb_puts(b, "{\"start\":");
	jaddr(d, as, m->start, b);
	sb_printf(b,
		  ",\"size\":%" PRIu64 ",\"perms\":\"%s\",\"offset\":%" PRIu64,
		  m->end - m->start, perms, m->offset);
	key(b, "file");
	jfile(d, m->file, b);
	key(b, "label");
	jstr(b, m->label);
	sb_puts(b, "}");
}

static void json_syscall(struct mrr_dump *d, const struct das *before,
			 const struct das *as, const struct mrr_event *ev,
			 struct sbuf *b)
{
	const char *name = dump_syscall_name(ev->nr);
	struct sc_arg args[6];
	struct mrr_madvise_extra mx;
	struct mrr_file_write_extra fw;
	struct mrr_mmap_extra mf;
	struct sbuf r = {0}, call = {0};
	uint64_t pending;
	bool masked, bad;
	int nargs, i;

	dump_syscall_args(d, before, ev, args, &nargs);
	sb_printf(b, ",\"nr\":%" PRId64 ",\"name\":", ev->nr);
	if (name)
		jstr(b, name);
	else
		sb_puts(b, "null");
	key(b, "args");
	sb_puts(b, "[");
	for (i = 0; i < nargs; i++) {
		char hex[24];

		sb_puts(b, i ? "," : "");
		if (args[i].masked) {
			jstr(b, args[i].text);
		} else {
			snprintf(hex, sizeof(hex), "0x%" PRIx64, ev->args[i]);
			jstr(b, hex);
		}
	}
	sb_puts(b, "]");
	key(b, "decoded");
	sb_puts(b, "[");
	for (i = 0; i < nargs; i++) {
		sb_puts(b, i ? "," : "");
		jstr(b, args[i].text);
	}
	sb_puts(b, "]");
	dump_syscall_result(d, as, ev, &r, &masked);
	key(b, "result");
	if (masked)
		sb_json_str(b, r.s, r.len);
	else
		sb_printf(b, "%" PRId64, ev->result);
	key(b, "result_text");
	sb_json_str(b, r.s ? r.s : "", r.len);
	if (dump_result_is_error(ev) ||
	    (ev->result < 0 && ev->result >= -516)) {
		const char *e = mrr_errno_name((int)-ev->result);

		key(b, "errno");
		if (e)
			jstr(b, e);
		else
			sb_printf(b, "\"%d\"", (int)-ev->result);
	}
	sb_printf(b, ",\"mode\":\"%s\",\"skipped\":%s",
		  ev->flags & MRR_EVF_BUFFERED ? "buffered" : "traced",
		  ev->flags & MRR_EVF_SKIPPED ? "true" : "false");
	if (name) {
		sb_printf(&call, "%s(", name);
		for (i = 0; i < nargs; i++)
			sb_printf(&call, "%s%s", i ? ", " : "", args[i].text);
		sb_puts(&call, ")");
		key(b, "call");
		sb_json_str(b, call.s, call.len);
	}
	if (dump_madv(ev, &mx, &bad)) {
		struct mrr_drop_range dr;
		struct mrr_locked_range l;
		uint32_t k;

		sb_printf(
			b,
			",\"madvise\":{\"precision\":\"%s\",\"forced_drop\":%s",
			mx.precision == MRR_DROP_PFN	   ? "pfn"
			: mx.precision == MRR_DROP_PRESENT ? "present"
							   : "unknown",
			mx.flags & MRR_MADV_FORCED_DROP ? "true" : "false");
		sb_puts(b, ",\"dropped\":[");
		for (k = 0; k < mx.nranges; k++) {
			dump_madv_range(ev, k, &dr);
			sb_puts(b, k ? ",{\"start\":" : "{\"start\":");
			jaddr(d, before, dr.start, b);
			sb_printf(b, ",\"size\":%" PRIu64 ",\"fill\":\"%s\"}",
				  dr.end - dr.start, dump_fill_name(dr.fill));
		}
		sb_puts(b, "],\"locked\":[");
		for (k = 0; k < mx.nlocked; k++) {
			dump_madv_locked(ev, &mx, k, &l);
			sb_puts(b, k ? ",{\"start\":" : "{\"start\":");
			jaddr(d, before, l.start, b);
			sb_printf(b, ",\"size\":%" PRIu64 "}", l.end - l.start);
		}
		sb_puts(b, "]}");
	} else if (bad) {
		sb_puts(b, ",\"bad_extra\":true");
	}
	if (dump_mmap_file(ev, &mf)) {
		sb_puts(b, ",\"mmap_file\":{\"file\":");
		jfile(d, mf.file, b);
		sb_printf(b, ",\"size\":%" PRIu64 ",\"shared\":%s}", mf.size,
			  mf.shared ? "true" : "false");
	}
	if (dump_interrupted(ev, &pending)) {
		int sig;
		bool first = true;

		sb_puts(b, ",\"interrupted\":{\"pending\":[");
		for (sig = 1; sig <= 64; sig++) {
			const char *sn = mrr_signal_name(sig);

			if (!(pending & (1ull << (sig - 1))))
				continue;
			sb_puts(b, first ? "" : ",");
			if (sn)
				jstr(b, sn);
			else
				sb_printf(b, "\"%d\"", sig);
			first = false;
		}
		sb_puts(b, "]}");
	}
	if (dump_file_write(ev, &fw)) {
		sb_puts(b, ",\"file_write\":{\"file\":");
		jfile(d, fw.file, b);
		sb_printf(b, ",\"offset\":%" PRIu64 "}", fw.offset);
	}
	sb_free(&r);
	sb_free(&call);
}

static void json_signal(struct mrr_dump *d, const struct das *as,
			const struct mrr_event *ev, struct sbuf *b)
{
	struct mrr_signal_extra x;
	const char *name = mrr_signal_name((int)ev->nr), *cn;
	int32_t code, pid;
	uint64_t addr;

	sb_printf(b, ",\"signo\":%" PRId64 ",\"signal\":", ev->nr);
	if (name)
		jstr(b, name);
	else
		sb_puts(b, "null");
	if (ev->extra_len != sizeof(x)) {
		sb_puts(b, ",\"bad_extra\":true");
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	memcpy(&code, x.siginfo + 8, 4);
	sb_printf(b, ",\"how\":\"%s\",\"si_code\":%d", dump_sig_how_name(x.how),
		  code);
	cn = dump_si_code_name((int)ev->nr, code);
	key(b, "si_code_name");
	if (cn)
		jstr(b, cn);
	else
		sb_puts(b, "null");
	if (code > 0 && code != 0x80 &&
	    (ev->nr == 11 || ev->nr == 7 || ev->nr == 4 || ev->nr == 8 ||
	     ev->nr == 5)) {
		memcpy(&addr, x.siginfo + 16, 8);
		key(b, "si_addr");
		jaddr(d, as, addr, b);
	} else if (code <= 0 || ev->nr == 17) {
		memcpy(&pid, x.siginfo + 16, 4);
		sb_printf(b, ",\"si_pid\":%d", dump_tid(d, pid));
	}
}

static void json_exec(struct mrr_dump *d, const struct mrr_event *ev,
		      struct sbuf *b)
{
	struct mrr_exec_extra x;
	const char *path, *slash;
	size_t len;

	if (ev->extra_len < sizeof(x)) {
		sb_puts(b, ",\"bad_extra\":true");
		return;
	}
	memcpy(&x, ev->extra, sizeof(x));
	x.exe_file[sizeof(x.exe_file) - 1] = 0;
	x.interp_file[sizeof(x.interp_file) - 1] = 0;
	path = (const char *)ev->extra + sizeof(x);
	len = strnlen(path, ev->extra_len - sizeof(x));
	key(b, "path");
	if ((d->flags & MRR_DUMP_STABLE) &&
	    (slash = memrchr(path, '/', len)) != NULL) {
		struct sbuf p = {0};

		sb_puts(&p, ".../");
		sb_put(&p, slash + 1, len - (size_t)(slash + 1 - path));
		sb_json_str(b, p.s, p.len);
		sb_free(&p);
	} else {
		sb_json_str(b, path, len);
	}
	key(b, "exe_file");
	jfile(d, x.exe_file, b);
	key(b, "interp_file");
	jfile(d, x.interp_file, b);
}

static void json_exit(const struct mrr_event *ev, struct sbuf *b)
{
	char text[64];
	int st = (int)ev->result;
	const char *name;

	sb_printf(b, ",\"status\":%" PRId64 ",\"text\":", ev->result);
	jstr(b, mrr_dump_wait_status(ev->result, text, sizeof(text)));
	if (ev->result < 0 || ev->result > 0xffff)
		return;
	if (WIFEXITED(st)) {
		sb_printf(b, ",\"exit_code\":%d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		name = mrr_signal_name(WTERMSIG(st));
		key(b, "signal");
		if (name)
			jstr(b, name);
		else
			sb_printf(b, "\"%d\"", WTERMSIG(st));
		sb_printf(b, ",\"core_dumped\":%s",
			  WCOREDUMP(st) ? "true" : "false");
	}
}

struct json_diff {
	struct mrr_dump *d;
	struct sbuf *b;
	bool first, added;
};

static void json_map_item(const struct das *as, const struct dmap *m, char sign,
			  void *arg)
{
	struct json_diff *jd = arg;

	if (sign == '+' && !jd->added) {
		sb_puts(jd->b, "],\"maps_added\":[");
		jd->added = true;
		jd->first = true;
	}
	sb_puts(jd->b, jd->first ? "" : ",");
	dump_json_map(jd->d, as, m, jd->b);
	jd->first = false;
}

void dump_json(struct mrr_dump *d, const struct mrr_event *ev,
	       struct das *before, struct das *after, FILE *out)
{
	struct dtask *t = dump_task(d, ev->tid, true);
	const struct das *as = t ? t->as : NULL;
	struct sbuf *b = &d->line;
	bool stable = d->flags & MRR_DUMP_STABLE;
	uint64_t nbytes = 0;
	uint32_t i;

	sb_reset(b);
	sb_printf(b, "{\"seq\":%" PRIu64 ",\"tid\":%d,\"kind\":\"%s\"", ev->seq,
		  dump_tid(d, ev->tid), dump_kind_name(ev->kind));
	{
		bool thread;
		int32_t pid = mrr_dump_task_pid(d, ev->tid, &thread);

		if (thread && pid)
			sb_printf(b, ",\"pid\":%d", dump_tid(d, pid));
		pid = dump_new_thread_of(d, ev);
		if (pid)
			sb_printf(b, ",\"new_thread_of\":%d", dump_tid(d, pid));
	}
	key(b, "ip");
	jaddr(d, before ? before : as, ev->ip, b);
	sb_puts(b, ",\"flags\":[");
	{
		static const char *const names[] = {"buffered", "skipped",
						    "to_stdout", "to_stderr"};
		bool first = true;

		for (i = 0; i < 4; i++) {
			if (!(ev->flags & (1u << i)))
				continue;
			sb_printf(b, "%s\"%s\"", first ? "" : ",", names[i]);
			first = false;
		}
	}
	sb_puts(b, "]");
	for (i = 0; i < ev->nwrites; i++)
		nbytes += ev->writes[i].len;
	sb_printf(b, ",\"nwrites\":%u,\"write_bytes\":", ev->nwrites);
	if (stable && ev->kind == MRR_EV_EXEC)
		sb_puts(b, "\"SIZE\""); /* the stack: follows argv and env */
	else
		sb_printf(b, "%" PRIu64, nbytes);
	switch (ev->kind) {
	case MRR_EV_SYSCALL:
		json_syscall(d, before ? before : as, as, ev, b);
		break;
	case MRR_EV_EXEC:
		json_exec(d, ev, b);
		break;
	case MRR_EV_SIGNAL:
		json_signal(d, as, ev, b);
		break;
	case MRR_EV_PREEMPT:
		sb_printf(b, ",\"reason\":\"%s\"",
			  ev->nr == MRR_PREEMPT_SIGNAL ? "signal"
						       : "timeslice");
		if (stable && ev->args[0])
			sb_puts(b, ",\"execution\":\"N\"");
		else
			sb_printf(b, ",\"execution\":%" PRIu64, ev->args[0]);
		break;
	case MRR_EV_RDTSC:
		sb_printf(b, ",\"insn\":\"%s\"",
			  ev->nr == 1 ? "rdtscp" : "rdtsc");
		if (stable)
			sb_puts(b, ",\"tsc\":\"TSC\"");
		else
			sb_printf(b, ",\"tsc\":%" PRIu64, ev->args[0]);
		if (ev->nr == 1) {
			if (stable)
				sb_puts(b, ",\"aux\":\"AUX\"");
			else
				sb_printf(b, ",\"aux\":%" PRIu64, ev->args[1]);
		}
		break;
	case MRR_EV_EXIT:
		json_exit(ev, b);
		break;
	case MRR_EV_SCHED: {
		const char *n = mrr_syscall_name((long)ev->nr);

		sb_printf(b, ",\"reason\":\"%s\",\"syscall\":\"%s\"",
			  dump_sched_reason(ev->result), n ? n : "?");
		break;
	}
	case MRR_EV_BUFFER:
		sb_printf(b, ",\"records\":%" PRIu64 ",\"bytes\":%" PRIu64,
			  ev->args[1], ev->args[0]);
		if (d->flags & MRR_DUMP_BUFFER)
			dump_buffer_json(d, ev, b);
		break;
	case MRR_EV_BACKTRACE: {
		uint64_t owner = mrr_dump_backtrace_owner(d, ev);
		struct sbuf lines = {0};
		const char *p;

		key(b, "of");
		if (owner == UINT64_MAX)
			sb_puts(b, "null");
		else
			sb_printf(b, "%" PRIu64, owner);
		sb_puts(b, ",\"frames\":[");
		dump_backtrace_lines(d, as, ev, "", &lines);
		p = lines.s;
		for (i = 0; p && *p; i++) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			sb_puts(b, i ? "," : "");
			sb_json_str(b, p, len);
			p = nl ? nl + 1 : p + len;
		}
		sb_puts(b, "]");
		sb_free(&lines);
		break;
	}
	default:
		sb_printf(b, ",\"kind_number\":%u", ev->kind);
	}
	if ((d->flags & MRR_DUMP_MAPS) && (before || after)) {
		struct json_diff jd = {d, b, true, false};

		sb_puts(b, ",\"maps_removed\":[");
		dump_maps_diff(d, before, after, json_map_item, &jd);
		if (!jd.added)
			sb_puts(b, "],\"maps_added\":[");
		sb_puts(b, "]");
	}
	if ((d->flags & MRR_DUMP_MEM) && ev->nwrites) {
		sb_puts(b, ",\"writes\":[");
		for (i = 0; i < ev->nwrites; i++) {
			const struct mrr_mem_write *w = &ev->writes[i];
			const unsigned char *p = w->data;
			uint64_t k;

			sb_puts(b, i ? ",{\"addr\":" : "{\"addr\":");
			jaddr(d, as, w->addr, b);
			sb_printf(b, ",\"len\":%" PRIu64 ",\"hex\":\"", w->len);
			for (k = 0; p && k < w->len; k++)
				sb_printf(b, "%02x", p[k]);
			if (!p)
				dump_streamed_json_hex(d, i, w, b, out);
			sb_puts(b, "\"}");
		}
		sb_puts(b, "]");
	}
	sb_puts(b, "}\n");
	fputs(b->s ? b->s : "", out);
}
