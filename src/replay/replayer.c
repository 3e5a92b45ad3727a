/* The replay loop: takes the trace's events in order and drives the task
 * each one belongs to up to it, checking that the task does what it did at
 * record. Tasks run one at a time, each only as far as its next event. */
#include "replay/replayer.h"

#include "core/events.h"
#include "core/exitcodes.h"
#include "core/hwbp.h"
#include "core/insn.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/seccomp_filter.h"
#include "core/tsc_patch.h"
#include "record/backtrace.h"
#include "record/filecache.h"
#include "replay/cleanup.h"
#include "replay/file_names.h"
#include "replay/preempt.h"
#include "replay/ptask.h"
#include "replay/session.h"
#include "replay/watchdog.h"
#include "syscallbuf/abi.h"
#include "syscalls/table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTRACE_OPTIONS                                                         \
	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEFORK |     \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACESECCOMP |   \
	 PTRACE_O_EXITKILL)

struct ptask *ptask_find(struct replayer *rp, pid_t rec_tid)
{
	struct ptask *t;

	for (t = rp->tasks; t; t = t->next)
		if (t->rec_tid == rec_tid)
			return t;
	return NULL;
}

struct ptask *ptask_add(struct replayer *rp, pid_t rec_tid, pid_t live_tid)
{
	struct ptask *t = calloc(1, sizeof(*t));

	if (!t)
		mrr_fatal("out of memory");
	t->rec_tid = rec_tid;
	t->tgid = rec_tid;
	t->t.tid = live_tid;
	t->t.mem_fd = -1;
	t->next = rp->tasks;
	rp->tasks = t;
	return t;
}

static void ptask_remove(struct replayer *rp, struct ptask *t)
{
	struct ptask **pp;

	for (pp = &rp->tasks; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	tracee_close_mem(&t->t);
	free(t);
}

/* "read"; mrr's own calls by their names; "syscall_N" for the rest. */
static const char *event_syscall_name(int64_t nr, char *buf, size_t buflen)
{
	const char *name = mrr_syscall_name(nr);

	if (name)
		return name;
	switch (nr) {
	case MRR_SYSCALL_REGISTER:
		return "mrr_buffer_register";
	case MRR_SYSCALL_FLUSH:
		return "mrr_buffer_flush";
	case MRR_SYSCALL_DESYNC:
		return "mrr_buffer_desync";
	}
	snprintf(buf, buflen, "syscall_%" PRId64, nr);
	return buf;
}

const char *task_name(struct replayer *rp, pid_t rec_tid, char *buf,
		      size_t buflen)
{
	struct ptask *t = rp ? ptask_find(rp, rec_tid) : NULL;
	struct ptask *leader = t ? ptask_find(rp, t->tgid) : NULL;

	if (t && (t->tgid != rec_tid || (leader && leader->threaded)))
		snprintf(buf, buflen, "thread %d of pid %d", rec_tid, t->tgid);
	else
		snprintf(buf, buflen, "pid %d", rec_tid);
	return buf;
}

void describe_event(struct replayer *rp, const struct mrr_event *ev, char *buf,
		    size_t buflen)
{
	const char *name;
	char res[64], other[32], who[64];

	task_name(rp, ev->tid, who, sizeof(who));
	switch (ev->kind) {
	case MRR_EV_SYSCALL:
		name = event_syscall_name(ev->nr, other, sizeof(other));
		if (ev->result < 0 && ev->result > -4096 &&
		    mrr_errno_name((int)-ev->result))
			snprintf(res, sizeof(res), "-1 %s",
				 mrr_errno_name((int)-ev->result));
		else
			snprintf(res, sizeof(res), "%" PRId64, ev->result);
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: %s(0x%" PRIx64 ", 0x%" PRIx64
			 ", 0x%" PRIx64 ", ...) = %s",
			 ev->seq, who, name, ev->args[0], ev->args[1],
			 ev->args[2], res);
		break;
	case MRR_EV_SIGNAL:
		name = mrr_signal_name((int)ev->nr);
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: signal %s at 0x%" PRIx64,
			 ev->seq, who, name ? name : "?", ev->ip);
		break;
	case MRR_EV_EXEC:
		snprintf(buf, buflen, "event %" PRIu64 " %s: exec", ev->seq,
			 who);
		break;
	case MRR_EV_RDTSC:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: rdtsc at 0x%" PRIx64, ev->seq,
			 who, ev->ip);
		break;
	case MRR_EV_EXIT:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: exit, status 0x%" PRIx64,
			 ev->seq, who, (uint64_t)ev->result);
		break;
	case MRR_EV_BUFFER:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: syscall buffer flush, %" PRIu64
			 " buffered calls in %" PRIu64 " bytes",
			 ev->seq, who, ev->args[1], ev->args[0]);
		break;
	case MRR_EV_BACKTRACE:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: backtrace of the event before",
			 ev->seq, who);
		break;
	case MRR_EV_PREEMPT:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: preemption at 0x%" PRIx64
			 ", execution %" PRIu64 " of it",
			 ev->seq, who, ev->ip, ev->args[0]);
		break;
	case MRR_EV_SCHED:
		name = event_syscall_name(ev->nr, other, sizeof(other));
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: enters %s, another thread runs",
			 ev->seq, who, name);
		break;
	default:
		snprintf(buf, buflen,
			 "event %" PRIu64 " %s: unknown event kind %u", ev->seq,
			 who, ev->kind);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Writes lines of text as a JSON array of strings. */
static void json_lines(FILE *f, const char *text)
{
	char line[512];
	const char *p = text;
	int first = 1;

	fputc('[', f);
	while (*p) {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (!first)
			fputc(',', f);
		json_str(f, line);
		first = 0;
		p += n;
		if (*p)
			p++;
	}
	fputc(']', f);
}

static void write_divergence_json(struct replayer *rp, struct ptask *t,
				  const char *msg,
				  const struct user_regs_struct *regs,
				  const char *dis, const char *bt)
{
	FILE *f = fopen(rp->o->divergence_json, "we");
	unsigned i;

	if (!f) {
		mrr_err("cannot write %s: %s", rp->o->divergence_json,
			strerror(errno));
		return;
	}
	fprintf(f,
		"{\"event\":%" PRIu64 ",\"pid\":%d,\"live_pid\":%d,"
		"\"tgid\":%d,\"message\":",
		rp->ev.seq, rp->ev.tid, t ? t->t.tid : 0,
		t ? t->tgid : rp->ev.tid);
	json_str(f, msg);
	if (regs)
		fprintf(f,
			",\"registers\":{\"rip\":%llu,\"rsp\":%llu,"
			"\"rax\":%llu,\"orig_rax\":%llu,\"rdi\":%llu,"
			"\"rsi\":%llu,\"rdx\":%llu,\"r10\":%llu,"
			"\"r8\":%llu,\"r9\":%llu}",
			regs->rip, regs->rsp, regs->rax, regs->orig_rax,
			regs->rdi, regs->rsi, regs->rdx, regs->r10, regs->r8,
			regs->r9);
	fputs(",\"disassembly\":", f);
	json_lines(f, dis);
	fputs(",\"backtrace\":", f);
	json_lines(f, bt);
	fputs(",\"recent_events\":[", f);
	for (i = rp->nrecent > RECENT_EVENTS ? rp->nrecent - RECENT_EVENTS : 0;
	     i < rp->nrecent; i++) {
		if (i != (rp->nrecent > RECENT_EVENTS
				  ? rp->nrecent - RECENT_EVENTS
				  : 0))
			fputc(',', f);
		json_str(f, rp->recent[i % RECENT_EVENTS]);
	}
	fputs("]}\n", f);
	fclose(f);
}

/* The likeliest cause of a divergence mrr cannot prevent: processes that
 * raced on memory they share (README, Limits). Says so when the diverging
 * task has writable shared mappings and other processes are replayed. */
static void hint_shared_memory(struct replayer *rp, struct ptask *t)
{
	struct proc_vma *v = NULL;
	long n, i, shown = 0;

	if (!rp->tasks || (rp->tasks == t && !t->next))
		return;
	n = proc_read_vmas(t->t.tid, false, &v);
	for (i = 0; i < n; i++) {
		if (!v[i].shared || !(v[i].prot & PROT_WRITE))
			continue;
		if (!shown++)
			fprintf(stderr,
				"mrr:   note: pid %d shares writable memory "
				"with other processes; if they raced on it "
				"at record, the replay cannot repeat the race "
				"(README, Limits):\n",
				rp->ev.tid);
		if (shown > 4)
			continue;
		fprintf(stderr, "mrr:     0x%" PRIx64 "-0x%" PRIx64 " %s\n",
			v[i].start, v[i].end,
			v[i].name[0] ? v[i].name : "(anonymous)");
	}
	if (shown > 4)
		fprintf(stderr, "mrr:     and %ld more\n", shown - 4);
	free(v);
}

void diverge(struct replayer *rp, struct ptask *t, const char *fmt, ...)
{
	char msg[1024], code[64], dis[2048] = "", bt[4096] = "", who[96];
	struct user_regs_struct regs;
	bool have_regs = false;
	va_list ap;
	unsigned i;

	if (rp->status)
		return;
	if (watchdog_fired()) { /* it has said why the replay stopped */
		rp->status = MRR_EXIT_SOFTWARE;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	task_name(rp, rp->ev.tid, who, sizeof(who));
	fprintf(stderr,
		"mrr: replay diverged at event %" PRIu64 " (%s, live %s %d): "
		"%s\n",
		rp->ev.seq, who, who[0] == 't' ? "tid" : "pid",
		t ? t->t.tid : 0, msg);
	if (t && tracee_get_regs(&t->t, &regs) == 0) {
		uint64_t from = regs.rip >= 16 ? regs.rip - 16 : regs.rip;
		ssize_t n = tracee_read(&t->t, from, code, sizeof(code));

		have_regs = true;
		fprintf(stderr,
			"mrr:   registers: rip=0x%llx rsp=0x%llx rax=0x%llx "
			"orig_rax=0x%llx rdi=0x%llx rsi=0x%llx rdx=0x%llx\n",
			regs.rip, regs.rsp, regs.rax, regs.orig_rax, regs.rdi,
			regs.rsi, regs.rdx);
		if (n > (ssize_t)(regs.rip - from) &&
		    mrr_disasm((uint8_t *)code + (regs.rip - from),
			       (size_t)n - (regs.rip - from), regs.rip,
			       regs.rip, 4, dis, sizeof(dis)) > 0)
			fprintf(stderr, "mrr:   code at rip:\n%s", dis);
		replay_name_backtrace_files(rp);
		if (mrr_backtrace(t->t.tid, bt, sizeof(bt)) > 0)
			fprintf(stderr, "mrr:   backtrace:\n%s", bt);
	}
	fprintf(stderr, "mrr:   last events before it:\n");
	for (i = rp->nrecent > RECENT_EVENTS ? rp->nrecent - RECENT_EVENTS : 0;
	     i < rp->nrecent; i++)
		fprintf(stderr, "mrr:     %s\n", rp->recent[i % RECENT_EVENTS]);
	if (t)
		hint_shared_memory(rp, t);
	if (rp->o->divergence_json)
		write_divergence_json(rp, t, msg, have_regs ? &regs : NULL, dis,
				      bt);
	rp->status = MRR_EXIT_SOFTWARE;
}

/* Each stored file is checked against its name's hash once per replay,
 * and not at all when this user's replays checked the very same file
 * before (filecache.h). */
static int verify_once(struct replayer *rp, const char *name, const char *path)
{
	size_t i;
	int err;

	for (i = 0; i < rp->nverified; i++)
		if (strcmp(rp->verified[i], name) == 0)
			return 0;
	err = filecache_check_stored(path, name);
	if (err)
		return err;
	if (rp->nverified % 64 == 0) {
		char(*g)[MRR_STORED_NAME_MAX] = realloc(
			rp->verified, (rp->nverified + 64) * sizeof(*g));
		if (!g)
			return 0;
		rp->verified = g;
	}
	snprintf(rp->verified[rp->nverified++], MRR_STORED_NAME_MAX, "%s",
		 name);
	return 0;
}

int stored_path(struct replayer *rp, const char *name, char *buf, size_t buflen)
{
	int err = mrr_trace_file_path(rp->r, name, buf, buflen);

	if (err) {
		mrr_err("trace %s is missing its stored file %s (event %" PRIu64
			")",
			rp->o->trace_dir, name, rp->ev.seq);
		rp->status = MRR_EXIT_DATAERR;
		return err;
	}
	err = verify_once(rp, name, buf);
	if (err) {
		mrr_err("trace %s: stored file %s no longer holds what was "
			"recorded (event %" PRIu64 ")",
			rp->o->trace_dir, name, rp->ev.seq);
		rp->status = MRR_EXIT_DATAERR;
	}
	return err;
}

bool replay_refuse_mrr_page(struct replayer *rp, uint64_t addr, uint64_t len)
{
	if (!len || addr >= MRR_PAGE_ADDR + MRR_PAGE_SIZE ||
	    (addr + len > addr && addr + len <= MRR_PAGE_ADDR))
		return false;
	mrr_err("trace %s: event %" PRIu64 " changes mrr's page at 0x%llx "
		"([0x%" PRIx64 ", +%" PRIu64 ")), which no recording does; "
		"the trace is corrupt",
		rp->o->trace_dir, rp->ev.seq, (unsigned long long)MRR_PAGE_ADDR,
		addr, len);
	rp->status = MRR_EXIT_DATAERR;
	return true;
}

/* Writes one recorded range into the task; a range the reader streams
 * (data NULL) goes a piece at a time. Returns 0 or -errno. */
static int write_recorded(struct replayer *rp, struct ptask *t,
			  const struct mrr_event *ev, uint32_t i)
{
	const struct mrr_mem_write *w = &ev->writes[i];
	uint8_t *buf;
	uint64_t off;
	int err = 0;

	if (w->data || !w->len)
		return tracee_write_all(&t->t, w->addr, w->data, w->len);
	buf = malloc(1u << 20);
	if (!buf)
		mrr_fatal("out of memory");
	for (off = 0; !err && off < w->len; off += 1u << 20) {
		size_t n = w->len - off < (1u << 20) ? (size_t)(w->len - off)
						     : (1u << 20);

		if (mrr_trace_read_data(rp->r, i, buf, n)) {
			mrr_err("%s", mrr_trace_error_message(rp->r));
			rp->status = MRR_EXIT_DATAERR;
			err = -EIO;
			break;
		}
		err = tracee_write_all(&t->t, w->addr + off, buf, n);
	}
	free(buf);
	return err;
}

int apply_writes(struct replayer *rp, struct ptask *t,
		 const struct mrr_event *ev)
{
	uint32_t i;
	int err;

	for (i = 0; i < ev->nwrites; i++)
		if (replay_refuse_mrr_page(rp, ev->writes[i].addr,
					   ev->writes[i].len))
			return -1;
	for (i = 0; i < ev->nwrites; i++) {
		err = write_recorded(rp, t, ev, i);
		if (err && rp->status)
			return -1;
		if (err) {
			diverge(rp, t,
				"cannot write %" PRIu64
				" recorded bytes at 0x%" PRIx64
				" (%s): the address is not mapped as it was at "
				"record",
				ev->writes[i].len, ev->writes[i].addr,
				strerror(-err));
			return -1;
		}
		replay_mem_written(rp, t, ev->writes[i].addr, ev->writes[i].len,
				   ev->seq);
	}
	return 0;
}

static pid_t replayer_pid; /* for the child: is its parent still mrr? */

static bool is_sigstop(int status)
{
	return WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP &&
	       (status >> 16) == 0;
}

static bool is_syscall_stop(int status)
{
	return WIFSTOPPED(status) && WSTOPSIG(status) == (SIGTRAP | 0x80);
}

/* A fork/clone at replay: the new task exists, its tid in the recording is
 * the fork's recorded result. */
void ptask_finish_pending_exit(struct replayer *rp, struct ptask *t)
{
	struct user_regs_struct r;

	if (tracee_get_regs(&t->t, &r) < 0)
		return;
	r.rax = (uint64_t)t->pending_result;
	if (tracee_set_regs(&t->t, &r) < 0)
		return;
	t->pending_exit = false;
}

/* Stops that lead nowhere (stray signals, ...) one event may take before
 * the replay counts as going round in circles. */
#define MAX_STOPS_WITHOUT_PROGRESS 100000

int ptask_next_stop(struct replayer *rp, struct ptask *t, int *status)
{
	if (t->held) {
		t->held = false;
		*status = t->held_status;
		return 0;
	}
	return ptask_advance(rp, t, PTRACE_CONT, status);
}

/* The kernel's restart of an interrupted call when no signal is delivered
 * at its exit (at record another thread took the signal, or it was one
 * mrr does not record): the call runs again, restart_syscall for
 * ERESTART_RESTARTBLOCK. The kernel does this itself only when a signal is
 * pending at the exit, which at replay there is not. */
static int restart_call(struct ptask *t)
{
	struct user_regs_struct r;

	if (tracee_get_regs(&t->t, &r) < 0)
		return -1;
	switch ((int64_t)r.rax) {
	case -516: /* ERESTART_RESTARTBLOCK */
		r.rax = SYS_restart_syscall;
		break;
	case -512: /* ERESTARTSYS */
	case -513: /* ERESTARTNOINTR */
	case -514: /* ERESTARTNOHAND */
		r.rax = r.orig_rax;
		break;
	default:
		return 0;
	}
	r.rip -= 2;
	return tracee_set_regs(&t->t, &r);
}

int ptask_resume(struct replayer *rp, struct ptask *t, int req)
{
	if (!t->stopped)
		return 0;
	if (t->sbuf_parked && replay_sbuf_retry(rp, t) < 0)
		return -1;
	if (t->skip_exit) {
		struct user_regs_struct r;

		t->skip_exit = false;
		/* a signal or a step from the real exit stop (whose rax is
		 * still the result emulate() set) */
		if ((req != PTRACE_CONT || t->resume_sig) &&
		    (tracee_get_regs(&t->t, &r) < 0 || run_to_exit(rp, t) < 0 ||
		     tracee_set_regs(&t->t, &r) < 0))
			return -1;
	}
	if (t->restart_pending) {
		t->restart_pending = false;
		if (t->at_exit && !t->resume_sig && restart_call(t) < 0) {
			diverge(rp, t, "cannot restart the interrupted call");
			return -1;
		}
	}
	/* ESRCH: killed in its stop (another thread's exit_group); the wait
	 * reports its death */
	if (ptrace(req, t->t.tid, 0, t->resume_sig) < 0 && errno != ESRCH) {
		diverge(rp, t, "cannot resume: %s", strerror(errno));
		return -1;
	}
	t->stopped = false;
	t->at_exit = false;
	t->at_point = false;
	t->resume_sig = 0;
	return 0;
}

int ptask_set_child_tid(struct ptask *t)
{
	uint32_t v = (uint32_t)t->child_tid_value;

	if (!t->child_tid_addr)
		return 0;
	return tracee_write_all(&t->t, t->child_tid_addr, &v, 4) < 0 ? -1 : 0;
}

/* A group-stop (the task took a stop signal the trace delivered to restart
 * an interrupted syscall, see src/record/jobctl.c): under PTRACE_TRACEME it
 * shows as a stop with the stop signal and no siginfo. The replay lets it
 * go on at once: nothing waits for it to be continued. */
static bool is_group_stop(struct ptask *t, int status)
{
	siginfo_t si;
	int sig = WSTOPSIG(status);

	if ((status >> 16) != 0 || (sig != SIGSTOP && sig != SIGTSTP &&
				    sig != SIGTTIN && sig != SIGTTOU))
		return false;
	return ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) < 0 &&
	       errno == EINVAL;
}

int ptask_advance(struct replayer *rp, struct ptask *t, int req, int *status)
{
	unsigned long stops = 0;

	for (;;) {
		if (++stops > MAX_STOPS_WITHOUT_PROGRESS) {
			diverge(rp, t,
				"the task stopped %d times without reaching "
				"this event (last wait status 0x%x): the "
				"replay goes round in circles",
				MAX_STOPS_WITHOUT_PROGRESS, *status);
			return -1;
		}
		if (ptask_resume(rp, t, req) < 0)
			return -1;
		if (tracee_wait(&t->t, status) < 0) {
			diverge(rp, t, "the task vanished");
			return -1;
		}
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return 0;
		t->stopped = true;
		if (t->fresh && is_sigstop(*status)) {
			t->fresh = false;
			if (ptask_set_child_tid(t) < 0)
				mrr_debug("pid %d: cannot set child tid",
					  t->t.tid);
			continue;
		}
		if (t->pending_exit && is_syscall_stop(*status)) {
			ptask_finish_pending_exit(rp, t);
			continue;
		}
		if (is_group_stop(t, *status))
			continue; /* a stop signal the trace delivered */
		if (WSTOPSIG(*status) != SIGTRAP &&
		    WSTOPSIG(*status) != SIGSEGV &&
		    WSTOPSIG(*status) != t->expect_sig &&
		    (*status >> 16) == 0) {
			siginfo_t si;

			/* Natural signals at replay (SIGCHLD from a replayed
			 * child, ...) are not the program's inputs: the
			 * recorded ones are injected instead. Faults are
			 * left to the caller. */
			if (ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) == 0 &&
			    !(si.si_code > 0 &&
			      (si.si_signo == SIGBUS || si.si_signo == SIGFPE ||
			       si.si_signo == SIGILL || si.si_signo == SIGSYS)))
				continue;
		}
		return 0;
	}
}

static bool same_contents(const char *a, const char *b)
{
	char ba[65536], bb[65536];
	int fa = open(a, O_RDONLY | O_CLOEXEC),
	    fb = open(b, O_RDONLY | O_CLOEXEC);
	bool same = fa >= 0 && fb >= 0;
	ssize_t na, nb;

	while (same) {
		na = read(fa, ba, sizeof(ba));
		nb = read(fb, bb, sizeof(bb));
		if (na != nb || na < 0 || memcmp(ba, bb, (size_t)na) != 0)
			same = false;
		else if (na == 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* The kernel loads the dynamic loader from the path in the executable, not
 * from the trace: it must be the recorded one. Returns 0 or -1 (reported). */
static int check_interp(struct replayer *rp, const struct mrr_exec_extra *x,
			const char *exe)
{
	char interp[PATH_MAX], stored[PATH_MAX];

	if (!x->interp_file[0] || elf_interp(exe, interp, sizeof(interp)) < 0 ||
	    !interp[0])
		return 0;
	if (stored_path(rp, x->interp_file, stored, sizeof(stored)))
		return -1;
	if (!same_contents(interp, stored)) {
		mrr_err("cannot replay %s: its dynamic loader %s is not the "
			"one "
			"recorded (the kernel loads it from that path)",
			rp->o->trace_dir, interp);
		rp->status = MRR_EXIT_NOINPUT;
		return -1;
	}
	return 0;
}

/* Spawns the program from the trace's stored executable, stopped before
 * its first instruction. */
static struct ptask *spawn(struct replayer *rp, const struct mrr_event *ev)
{
	const struct mrr_exec_extra *x = ev->extra;
	char exe[PATH_MAX];
	char **argv, **envp;
	size_t i, n;
	const char *p;
	int status;
	pid_t pid;

	if (stored_path(rp, x->exe_file, exe, sizeof(exe)) ||
	    check_interp(rp, x, exe) < 0)
		return NULL;
	if ((rp->info->flags & MRR_INFO_TSC_TRAP) && !tsc_trap_works()) {
		mrr_err("cannot replay: the recording relied on rdtsc "
			"trapping (PR_SET_TSC), and rdtsc does not trap on "
			"this machine; record with MRR_TSC_MODE=rewrite to "
			"replay here");
		rp->status = MRR_EXIT_OSERR;
		return NULL;
	}
	/* unpack argv/env blobs */
	for (n = 0, p = rp->info->argv; p < rp->info->argv + rp->info->argv_len;
	     p += strlen(p) + 1)
		n++;
	argv = calloc(n + 1, sizeof(*argv));
	for (i = 0, p = rp->info->argv; i < n; p += strlen(p) + 1)
		argv[i++] = (char *)p;
	for (n = 0, p = rp->info->env; p < rp->info->env + rp->info->env_len;
	     p += strlen(p) + 1)
		n++;
	envp = calloc(n + 1, sizeof(*envp));
	for (i = 0, p = rp->info->env; i < n; p += strlen(p) + 1)
		envp[i++] = (char *)p;
	if (!argv || !envp)
		mrr_fatal("out of memory");

	replayer_pid = getpid();
	pid = fork();
	if (pid < 0) {
		mrr_err("cannot fork: %s", strerror(errno));
		rp->status = MRR_EXIT_OSERR;
		return NULL;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) < 0)
			_exit(MRR_EXIT_OSERR);
		/* if mrr dies before it can set PTRACE_O_EXITKILL */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != replayer_pid)
			_exit(MRR_EXIT_OSERR);
		raise(SIGSTOP);
		personality(ADDR_NO_RANDOMIZE);
		prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
		if (rp->info->cwd && chdir(rp->info->cwd) < 0)
			(void)chdir("/");
		if (mrr_install_seccomp_filter(
			    rp->info->flags & MRR_INFO_UNTRACED_SIGACTION,
			    false) < 0)
			_exit(MRR_EXIT_OSERR);
		execve(exe, argv, envp);
		_exit(MRR_EXIT_NOINPUT);
	}
	free(argv);
	free(envp);
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_OPTIONS) < 0) {
		mrr_err("cannot trace the replayed program: %s",
			strerror(errno));
		kill(pid, SIGKILL);
		rp->status = MRR_EXIT_OSERR;
		return NULL;
	}
	/* run to the exec: past the seccomp stop of execve itself */
	for (;;) {
		ptrace(PTRACE_CONT, pid, 0, 0);
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
			mrr_err("the replayed program did not start (stored "
				"executable %s)",
				exe);
			rp->status = MRR_EXIT_OSERR;
			return NULL;
		}
		if ((status >> 16) == PTRACE_EVENT_EXEC)
			break;
	}
	return ptask_add(rp, ev->tid, pid);
}

/* From the exec event stop: finish the execve and lay out the recorded
 * initial state. */
static void finish_exec(struct replayer *rp, struct ptask *t)
{
	const struct mrr_exec_extra *x = rp->ev.extra;
	struct user_regs_struct regs;
	int status;

	if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0 ||
	    tracee_wait(&t->t, &status) < 0 || !is_syscall_stop(status)) {
		diverge(rp, t, "execve did not complete");
		return;
	}
	t->stopped = true;
	t->threaded = false; /* the kernel ended its other threads */
	t->at_exit = true;
	t->sbuf_addr = 0;
	if (tracee_open_mem(&t->t) < 0 || tracee_map_mrr_page(&t->t) < 0) {
		diverge(rp, t, "cannot map mrr's page at 0x%llx",
			(unsigned long long)MRR_PAGE_ADDR);
		return;
	}
	if (tracee_get_regs(&t->t, &regs) < 0)
		return;
	if (regs.rip != x->regs[16]) { /* rip is word 16 */
		diverge(rp, t,
			"the new program starts at 0x%llx, at record it "
			"started at 0x%" PRIx64,
			regs.rip, x->regs[16]);
		return;
	}
	if (apply_writes(rp, t, &rp->ev) < 0)
		return;
	memcpy(&regs, x->regs, sizeof(regs));
	if (tracee_set_regs(&t->t, &regs) < 0)
		diverge(rp, t, "cannot set the initial registers");
}

/* An execve by t ends the other threads of its process. They die in the
 * kernel (their exit events follow the exec event: replay_reap_thread).
 * When t is not the leader, the leader dies without a report and t takes
 * its tid: returns the leader's task, whose live tid the exec stop comes
 * under, else NULL. */
static struct ptask *exec_ends_threads(struct replayer *rp, struct ptask *t)
{
	struct ptask *p, *leader = NULL;

	for (p = rp->tasks; p; p = p->next) {
		if (p == t || p->tgid != t->tgid)
			continue;
		if (p->rec_tid == t->tgid && t->rec_tid != t->tgid)
			leader = p;
		else
			p->dying = true;
	}
	return leader;
}

void replay_exec(struct replayer *rp)
{
	const struct mrr_event *ev = &rp->ev;
	const struct mrr_exec_extra *x = ev->extra;
	struct ptask *t = ptask_find(rp, ev->tid), *leader;
	struct user_regs_struct regs;
	char exe[PATH_MAX];
	int status;

	if (ev->extra_len < sizeof(*x)) {
		mrr_err("trace %s: exec event %" PRIu64 " is malformed",
			rp->o->trace_dir, ev->seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	if (!t) {
		if (rp->tasks) {
			diverge(rp, NULL, "exec of an unknown pid %d", ev->tid);
			return;
		}
		t = spawn(rp, ev);
		if (t)
			finish_exec(rp, t);
		return;
	}
	/* the program's own execve: run it on the stored executable */
	if (ptask_next_stop(rp, t, &status) < 0)
		return;
	if ((status >> 16) != PTRACE_EVENT_SECCOMP ||
	    tracee_get_regs(&t->t, &regs) < 0 ||
	    (regs.orig_rax != SYS_execve && regs.orig_rax != SYS_execveat)) {
		diverge(rp, t, "expected execve, the task did something else");
		return;
	}
	if (stored_path(rp, x->exe_file, exe, sizeof(exe)) ||
	    check_interp(rp, x, exe) < 0)
		return;
	if (tracee_write_all(&t->t, MRR_PAGE_ADDR + MRR_PAGE_SCRATCH, exe,
			     strlen(exe) + 1) < 0) {
		diverge(rp, t, "cannot write into mrr's page");
		return;
	}
	if (regs.orig_rax == SYS_execveat) { /* becomes a plain execve */
		regs.rsi = regs.rdx;
		regs.rdx = regs.r10;
	}
	regs.orig_rax = SYS_execve;
	regs.rdi = MRR_PAGE_ADDR + MRR_PAGE_SCRATCH;
	if (tracee_set_regs(&t->t, &regs) < 0)
		return;
	leader = exec_ends_threads(rp, t);
	if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0) {
		diverge(rp, t, "cannot resume into execve");
		return;
	}
	if (replay_reap_dying(rp, t->tgid) < 0)
		return;
	for (;;) {
		if (tracee_wait(leader ? &leader->t : &t->t, &status) < 0 ||
		    !WIFSTOPPED(status)) {
			diverge(rp, t,
				"execve of the stored executable failed");
			return;
		}
		if ((status >> 16) == PTRACE_EVENT_EXEC)
			break;
		if (is_syscall_stop(status)) {
			diverge(rp, t,
				"execve of the stored executable %s "
				"failed",
				exe);
			return;
		}
		if (ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0) < 0) {
			diverge(rp, t, "cannot resume into execve");
			return;
		}
	}
	if (leader) {
		/* the leader is gone without a report; t has its tid now */
		tracee_close_mem(&t->t);
		t->t.tid = leader->t.tid;
		t->rec_tid = t->tgid;
		leader->t.tid = 0;
		ptask_remove(rp, leader);
	}
	finish_exec(rp, t);
}

void replay_rdtsc(struct replayer *rp, struct ptask *t)
{
	struct user_regs_struct regs;
	uint8_t code[16];
	unsigned len = 0;
	int status, kind = 0;
	ssize_t n;

	if (ptask_next_stop(rp, t, &status) < 0)
		return;
	if (!WIFSTOPPED(status) ||
	    (WSTOPSIG(status) != SIGSEGV && WSTOPSIG(status) != SIGILL) ||
	    tracee_get_regs(&t->t, &regs) < 0) {
		diverge(rp, t, "expected an rdtsc trap, got status 0x%x",
			status);
		return;
	}
	n = tracee_read(&t->t, regs.rip, code, sizeof(code));
	if (n >= 2 && code[0] == 0x0f && code[1] == 0x0b)
		kind = tsc_patched_insn(t->t.tid, regs.rip, &len);
	else if (n > 0)
		kind = mrr_decode_tsc(code, (size_t)n, regs.rip, &len);
	if (regs.rip != rp->ev.ip || !kind) {
		diverge(rp, t,
			"expected rdtsc at 0x%" PRIx64 ", got %s at 0x%llx",
			rp->ev.ip, mrr_signal_name(WSTOPSIG(status)), regs.rip);
		return;
	}
	regs.rax = (uint32_t)rp->ev.args[0];
	regs.rdx = rp->ev.args[0] >> 32;
	if (rp->ev.nr == 1)
		regs.rcx = (uint32_t)rp->ev.args[1];
	regs.rip += len;
	if (tracee_set_regs(&t->t, &regs) < 0)
		return;
	t->resume_sig = 0;
}

/* A program that set PR_TSC_SIGSEGV itself got SIGSEGV for its rdtsc at
 * record; where the site was rewritten to ud2 (rewrite mode) the replay
 * stops with SIGILL there instead, which the recorder turned into that
 * SIGSEGV too (src/record/signals.c, tsc_fault). */
static bool rewritten_rdtsc_fault(struct replayer *rp, struct ptask *t,
				  int status, const siginfo_t *want)
{
	struct user_regs_struct regs;
	unsigned len = 0;

	return WSTOPSIG(status) == SIGILL && want->si_signo == SIGSEGV &&
	       want->si_code == SI_KERNEL &&
	       tracee_get_regs(&t->t, &regs) == 0 && regs.rip == rp->ev.ip &&
	       tsc_patched_insn(t->t.tid, regs.rip, &len) != 0;
}

/* Resumes t and waits for the delivery stop of the signal mrr sent it. */
static int wait_signal_stop(struct replayer *rp, struct ptask *t, int sig)
{
	int status, err;

	t->expect_sig = sig;
	err = ptask_next_stop(rp, t, &status);
	t->expect_sig = 0;
	if (err < 0)
		return -1;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != sig) {
		diverge(rp, t, "signal %s sent by mrr did not arrive",
			mrr_signal_name(sig));
		return -1;
	}
	return 0;
}

/* Runs t to its next stop, or to the recorded ip of the fatal signal event
 * being replayed, with a breakpoint there: a task that the signal killed
 * in a loop without syscalls never stops by itself. Returns as
 * ptask_next_stop. */
static int run_to_fatal_stop(struct replayer *rp, struct ptask *t, int *status)
{
	struct user_regs_struct r;
	bool armed;
	int err;

	/* Standing at that ip already (its last call returned there, at the
	 * site of the call it died in): the breakpoint is for the next time
	 * it comes back, after one instruction. */
	if (!t->held && t->stopped && tracee_get_regs(&t->t, &r) == 0 &&
	    r.rip == rp->ev.ip) {
		err = ptask_advance(rp, t, PTRACE_SINGLESTEP, status);
		if (err < 0 || !WIFSTOPPED(*status) ||
		    WSTOPSIG(*status) != SIGTRAP || (*status >> 16) != 0)
			return err;
	}
	armed = !t->held && t->stopped &&
		hwbp_set(t->t.tid, REPLAY_PREEMPT_SLOT, rp->ev.ip, HWBP_EXEC,
			 1) == 0;
	err = ptask_next_stop(rp, t, status);
	if (armed && err == 0 && WIFSTOPPED(*status) &&
	    hwbp_clear(t->t.tid, REPLAY_PREEMPT_SLOT) < 0)
		mrr_debug("pid %d: cannot clear the breakpoint at 0x%" PRIx64,
			  t->t.tid, rp->ev.ip);
	return err;
}

void replay_signal(struct replayer *rp, struct ptask *t)
{
	const struct mrr_signal_extra *x = rp->ev.extra;
	int sig = (int)rp->ev.nr, status;
	struct user_regs_struct regs;
	siginfo_t si;

	if (rp->ev.extra_len < sizeof(*x) || sig <= 0 || sig >= 65) {
		mrr_err("trace %s: signal event %" PRIu64 " is malformed",
			rp->o->trace_dir, rp->ev.seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	memcpy(&si, x->siginfo, sizeof(si));
	switch (x->how) {
	case MRR_SIG_SYNC:
		if (ptask_next_stop(rp, t, &status) < 0)
			return;
		if (!WIFSTOPPED(status) ||
		    (WSTOPSIG(status) != sig &&
		     !rewritten_rdtsc_fault(rp, t, status, &si)) ||
		    (status >> 16) != 0) {
			diverge(rp, t,
				"expected signal %s, the task stopped with "
				"status 0x%x",
				mrr_signal_name(sig), status);
			return;
		}
		break;
	case MRR_SIG_AT_SYSCALL:
		if (!t->at_exit && t->resume_sig && t->stopped) {
			/* At the delivery stop of the signal before it: the
			 * kernel delivered this one too before any user code
			 * ran (nested handler frames). Queue it, and let the
			 * previous one go. */
			if (syscall(SYS_tgkill, t->t.tid, t->t.tid, sig) < 0 ||
			    wait_signal_stop(rp, t, sig) < 0) {
				diverge(rp, t,
					"signal %s did not follow the signal "
					"before it",
					mrr_signal_name(sig));
				return;
			}
			break;
		}
		if (!t->at_exit) {
			diverge(rp, t,
				"signal %s was delivered after a syscall "
				"at record, but the task is elsewhere",
				mrr_signal_name(sig));
			return;
		}
		t->resume_sig = sig; /* the kernel queues it at the exit */
		if (wait_signal_stop(rp, t, sig) < 0)
			return;
		break;
	case MRR_SIG_AT_POINT:
		if (!t->at_point || !t->stopped) {
			diverge(rp, t,
				"signal %s was delivered at a preemption point "
				"at record, but the task is not at one",
				mrr_signal_name(sig));
			return;
		}
		break;
	case MRR_SIG_FATAL:
		/* It killed the task wherever it stood; here the task dies
		 * at its next stop, having done nothing visible since, or
		 * where the recording's task was (a loop that makes no
		 * syscall has no next stop). */
		if (run_to_fatal_stop(rp, t, &status) < 0)
			return;
		if (!WIFSTOPPED(status))
			return;
		if ((status >> 16) == PTRACE_EVENT_SECCOMP &&
		    tracee_get_regs(&t->t, &regs) == 0) {
			regs.orig_rax = (uint64_t)-1; /* the call never ran */
			if (tracee_set_regs(&t->t, &regs) < 0)
				return;
		}
		syscall(SYS_tgkill, t->t.tid, t->t.tid, sig);
		if (wait_signal_stop(rp, t, sig) < 0)
			return;
		break;
	default:
		mrr_err("trace %s: signal event %" PRIu64 " is malformed",
			rp->o->trace_dir, rp->ev.seq);
		rp->status = MRR_EXIT_DATAERR;
		return;
	}
	if (ptrace(PTRACE_SETSIGINFO, t->t.tid, 0, &si) < 0) {
		diverge(rp, t, "cannot set the signal's info");
		return;
	}
	t->resume_sig = sig;
}

/* Seccomp strict mode killed t, alone in its process, at the entry of the
 * call its exit event names (record_virt.c): runs it there, with a stop at
 * every syscall (the replay's filter lets some calls run without one), and
 * kills it. Strict mode leaves it only read, write, exit and rt_sigreturn,
 * each an event of its own, so the first call it makes is that one. Returns
 * 0, or -1 after a divergence report. */
static int replay_strict_kill(struct replayer *rp, struct ptask *t)
{
	const char *call = mrr_syscall_name(rp->ev.nr);
	struct user_regs_struct regs;
	const char *name;
	int status;

	if (!call)
		call = "its last call";
	for (;;) {
		if (ptask_resume(rp, t, PTRACE_SYSCALL) < 0)
			return -1;
		if (tracee_wait(&t->t, &status) < 0) {
			diverge(rp, t, "the task vanished");
			return -1;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			t->held = true; /* replay_exit compares the status */
			t->held_status = status;
			return 0;
		}
		t->stopped = true;
		if ((status >> 16) != PTRACE_EVENT_SECCOMP &&
		    !is_syscall_stop(status)) {
			/* a signal that natively would have ended it or
			 * run a handler, which in strict mode can make no
			 * call but the allowed ones: not the recorded way */
			diverge(rp, t,
				"expected the task to reach %s, where strict "
				"mode killed it, it stopped with status 0x%x",
				call, status);
			return -1;
		}
		if (tracee_get_regs(&t->t, &regs) < 0) {
			diverge(rp, t, "cannot read the task's registers");
			return -1;
		}
		if ((int64_t)regs.orig_rax == rp->ev.nr)
			break;
		name = mrr_syscall_name((long)regs.orig_rax);
		diverge(rp, t,
			"expected the task to reach %s, where strict mode "
			"killed it, it called %s",
			call, name ? name : "an unknown syscall");
		return -1;
	}
	kill(t->t.tid, SIGKILL);
	t->stopped = false;
	return 0;
}

void replay_exit(struct replayer *rp, struct ptask *t)
{
	int status, want = (int)rp->ev.result;
	struct user_regs_struct regs;
	bool killed;

	if (t->dead || t->dying) { /* its process is ending */
		if (replay_reap_thread(rp, t, &status) < 0)
			return;
		goto ended;
	}
	/* SIGKILL from outside: no stop showed where; nothing the task did
	 * after its last event was seen, so it dies here. */
	killed = rp->ev.nr == -1 && WIFSIGNALED(want) &&
		 WTERMSIG(want) == SIGKILL;
	if (killed && !t->resume_sig) {
		kill(t->t.tid, SIGKILL);
		t->stopped = false;
	} else if (t->strict && rp->ev.nr != -1 && rp->ev.nr != SYS_exit &&
		   WIFSIGNALED(want) && WTERMSIG(want) == SIGKILL &&
		   replay_strict_kill(rp, t) < 0) {
		return;
	}
	for (;;) {
		if (ptask_next_stop(rp, t, &status) < 0)
			return;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (killed && (status >> 16) == PTRACE_EVENT_SECCOMP) {
			/* The signal it took last (a SIGSTOP that interrupted
			 * a pause, say) ran its course, and the task made a
			 * call that never returned at record: the kill came
			 * while it waited in it (or before it ran, which
			 * looks the same). */
			kill(t->t.tid, SIGKILL);
			t->stopped = false;
			continue;
		}
		if ((status >> 16) == PTRACE_EVENT_SECCOMP && t->strict &&
		    tracee_get_regs(&t->t, &regs) == 0 &&
		    (int64_t)regs.orig_rax == rp->ev.nr &&
		    rp->ev.nr != SYS_exit && rp->ev.nr != SYS_exit_group) {
			/* strict mode ended this thread alone at this call, as
			 * the recorder did (record_virt.c) */
			regs.orig_rax = SYS_exit;
			regs.rdi = 0;
			if (tracee_set_regs(&t->t, &regs) < 0)
				return;
			continue;
		}
		if ((status >> 16) == PTRACE_EVENT_SECCOMP &&
		    tracee_get_regs(&t->t, &regs) == 0 &&
		    regs.orig_rax != SYS_exit &&
		    regs.orig_rax != SYS_exit_group) {
			const char *name =
				mrr_syscall_name((long)regs.orig_rax);

			diverge(rp, t,
				"expected the task to exit, it called %s",
				name ? name : "an unknown syscall");
			return;
		}
		t->resume_sig = 0;
		if ((status >> 16) == PTRACE_EVENT_SECCOMP &&
		    regs.orig_rax == SYS_exit_group &&
		    replay_group_exit(rp, t)) {
			if (replay_reap_thread(rp, t, &status) < 0)
				return;
			break;
		}
	}
ended:
	/* The core-dump bit depends on the machine's settings, not the
	 * program. */
	if ((status & ~0x80) != (want & ~0x80)) {
		diverge(rp, t,
			"the task ended with status 0x%x, at record 0x%x",
			status, want);
		return;
	}
	ptask_remove(rp, t);
}

void remember(struct replayer *rp)
{
	describe_event(rp, &rp->ev, rp->recent[rp->nrecent % RECENT_EVENTS],
		       sizeof(rp->recent[0]));
	rp->nrecent++;
}

void kill_all(struct replayer *rp)
{
	struct ptask *t;
	int status;

	while ((t = rp->tasks)) {
		kill(t->t.tid, SIGKILL);
		while (waitpid(t->t.tid, &status, __WALL) == t->t.tid &&
		       !WIFEXITED(status) && !WIFSIGNALED(status))
			;
		ptask_remove(rp, t);
	}
	while (waitpid(-1, &status, __WALL | WNOHANG) > 0)
		;
}
