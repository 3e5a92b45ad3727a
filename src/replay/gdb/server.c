/* The gdb server loop: one packet in, one reply out. Every packet that
 * cannot be parsed gets an error reply ("E01") or an empty one (unknown). */
#include "replay/gdb/server.h"

#include "core/exitcodes.h"
#include "core/log.h"
#include "replay/gdb/target.h"
#include "replay/checkpoint.h"
#include "replay/replayer.h"
#include "replay/watchdog.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int gdb_listen(const struct gdb_opts *g, int *port_out);
int gdb_accept(int lfd, const struct gdb_opts *g, int port, pid_t *gdb_pid);

static void xfer(struct gdb_server *s, const char *data, size_t len,
		 const char *range)
{
	const char *p = range;
	uint64_t off, n;
	char *out;

	if (!hex_u64(&p, &off) || *p++ != ',' || !hex_u64(&p, &n) || *p) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (n > GDB_PACKET_MAX - 8)
		n = GDB_PACKET_MAX - 8;
	if (off >= len) {
		gdb_send(&s->c, "l");
		return;
	}
	if (n > len - off)
		n = len - off;
	out = malloc(n + 1);
	if (!out)
		mrr_fatal("out of memory");
	out[0] = off + n < len ? 'm' : 'l';
	memcpy(out + 1, data + off, n);
	gdb_send_bin(&s->c, out, n + 1);
	free(out);
}

/* Reads a small /proc file of the debugged task into buf. */
static ssize_t proc_file(struct gdb_server *s, const char *what, char *buf,
			 size_t len)
{
	struct ptask *t = gdb_task(s);
	char path[64];
	ssize_t n, total = 0;
	int fd;

	if (!t)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/%s", t->t.tid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)total < len &&
	       (n = read(fd, buf + total, len - (size_t)total)) > 0)
		total += n;
	close(fd);
	return total;
}

static void handle_xfer(struct gdb_server *s, const char *q)
{
	char buf[8192];
	ssize_t n;

	if (!strncmp(q, "features:read:target.xml:", 25)) {
		xfer(s, gdb_target_xml, strlen(gdb_target_xml), q + 25);
	} else if (!strncmp(q, "auxv:read::", 11)) {
		n = proc_file(s, "auxv", buf, sizeof(buf));
		if (n < 0)
			gdb_send(&s->c, "E01");
		else
			xfer(s, buf, (size_t)n, q + 11);
	} else if (!strncmp(q, "exec-file:read:", 15)) {
		struct ptask *t = gdb_task(s);
		const char *range = strchr(q + 15, ':');
		char link[64];

		if (!t || !range) {
			gdb_send(&s->c, "E01");
			return;
		}
		snprintf(link, sizeof(link), "/proc/%d/exe", t->t.tid);
		n = readlink(link, buf, sizeof(buf) - 1);
		if (n < 0)
			gdb_send(&s->c, "E01");
		else
			xfer(s, buf, (size_t)n, range + 1);
	} else if (!strncmp(q, "libraries-svr4:read:", 20)) {
		static char xml[65536];
		const char *range = strrchr(q + 20, ':');
		size_t len = gdb_libraries_xml(s, xml, sizeof(xml));

		if (!range || s->exited)
			gdb_send(&s->c, "E01");
		else
			xfer(s, xml, len, range + 1);
	} else if (!strncmp(q, "threads:read::", 14)) {
		static char xml[16384];
		size_t m = (size_t)snprintf(
			xml, sizeof(xml),
			"<?xml version=\"1.0\"?>\n<threads>\n");

		for (struct ptask *t = s->rp.tasks; t && !s->exited;
		     t = t->next)
			if (gdb_thread_live(s, t->rec_tid) &&
			    m + 64 < sizeof(xml))
				m += (size_t)snprintf(
					xml + m, sizeof(xml) - m,
					"<thread id=\"%x\" core=\"0\"/>\n",
					t->rec_tid);
		m += (size_t)snprintf(xml + m, sizeof(xml) - m, "</threads>\n");
		xfer(s, xml, m, q + 14);
		return;
		xfer(s, buf, (size_t)n, q + 14);
	} else {
		gdb_send(&s->c, "");
	}
}

static void read_memory(struct gdb_server *s, const char *args, bool binary)
{
	struct ptask *t = gdb_task(s);
	const char *p = args;
	uint64_t addr, len;
	static uint8_t data[GDB_PACKET_MAX / 2];
	static char hex[GDB_PACKET_MAX + 2];
	ssize_t n;

	if (!hex_u64(&p, &addr) || *p++ != ',' || !hex_u64(&p, &len) || *p) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (len > sizeof(data) - 1)
		len = sizeof(data) - 1;
	n = t ? tracee_read(&t->t, addr, data, len) : -1;
	if (n <= 0 && len) {
		gdb_send(&s->c, "E14");
		return;
	}
	if (binary) {
		hex[0] = 'b';
		memcpy(hex + 1, data, (size_t)n);
		gdb_send_bin(&s->c, hex, (size_t)n + 1);
		return;
	}
	hex_encode(hex, data, (size_t)(n < 0 ? 0 : n));
	hex[2 * (n < 0 ? 0 : n)] = 0;
	gdb_send(&s->c, hex);
}

/* M addr,len:hex and X addr,len:binary, remembered for undoing. */
static void write_memory(struct gdb_server *s, const char *args, size_t plen,
			 bool binary)
{
	struct ptask *t = gdb_task(s);
	const char *p = args, *end = args + plen;
	uint64_t addr, len;
	uint8_t *data, *old;
	struct gdb_undo *u;

	if (!hex_u64(&p, &addr) || *p++ != ',' || !hex_u64(&p, &len) ||
	    *p++ != ':' || len > GDB_PACKET_MAX ||
	    (binary ? (uint64_t)(end - p) != len
		    : (uint64_t)(end - p) != 2 * len) ||
	    !t) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (!len) {
		gdb_send(&s->c, "OK");
		return;
	}
	data = malloc(len);
	old = malloc(len);
	u = realloc(s->undo, (s->nundo + 1) * sizeof(*u));
	if (!data || !old || !u)
		mrr_fatal("out of memory");
	s->undo = u;
	if (binary)
		memcpy(data, p, len);
	if ((!binary && hex_decode(p, data, len) < 0) ||
	    tracee_read_all(&t->t, addr, old, len) < 0 ||
	    tracee_write_all(&t->t, addr, data, len) < 0) {
		free(data);
		free(old);
		gdb_send(&s->c, "E01");
		return;
	}
	free(data);
	s->undo[s->nundo++] = (struct gdb_undo){addr, (uint32_t)len, old};
	gdb_send(&s->c, "OK");
}

static void regs_packet(struct gdb_server *s, char cmd, const char *args)
{
	struct gdb_regs r;
	static char out[GDB_NREGS * 32 + 1];
	uint8_t v[16];
	size_t n = 0, sz;
	uint64_t regno;
	const char *p = args;

	if (gdb_get_regs(s, &r) < 0) {
		gdb_send(&s->c, "E01");
		return;
	}
	switch (cmd) {
	case 'g':
		for (int i = 0; i < GDB_NREGS; i++) {
			sz = gdb_reg_get(&r, i, v);
			hex_encode(out + n, v, sz);
			n += 2 * sz;
		}
		out[n] = 0;
		gdb_send(&s->c, out);
		return;
	case 'p':
		if (!hex_u64(&p, &regno) || *p || regno >= GDB_NREGS) {
			gdb_send(&s->c, "E01");
			return;
		}
		sz = gdb_reg_get(&r, (int)regno, v);
		hex_encode(out, v, sz);
		out[2 * sz] = 0;
		gdb_send(&s->c, out);
		return;
	case 'P':
		if (!hex_u64(&p, &regno) || *p++ != '=' || regno >= GDB_NREGS ||
		    !(sz = gdb_reg_get(&r, (int)regno, v)) ||
		    strlen(p) != 2 * sz || hex_decode(p, v, sz) < 0 ||
		    gdb_reg_set(&r, (int)regno, v, sz) < 0 ||
		    gdb_set_regs(s, &r) < 0) {
			gdb_send(&s->c, "E01");
			return;
		}
		gdb_send(&s->c, "OK");
		return;
	case 'G':
		for (int i = 0; i < GDB_NREGS; i++) {
			sz = gdb_reg_get(&r, i, v);
			if (strlen(p) < 2 * sz || hex_decode(p, v, sz) < 0) {
				gdb_send(&s->c, "E01");
				return;
			}
			gdb_reg_set(&r, i, v, sz);
			p += 2 * sz;
		}
		gdb_send(&s->c, gdb_set_regs(s, &r) < 0 ? "E01" : "OK");
		return;
	}
}

/* Z/z TYPE,ADDR,KIND */
static void breakpoint_packet(struct gdb_server *s, bool insert,
			      const char *args)
{
	const char *p = args;
	uint64_t type, addr, kind;
	size_t i, nhw = 0;

	if (!hex_u64(&p, &type) || *p++ != ',' || !hex_u64(&p, &addr) ||
	    *p++ != ',' || !hex_u64(&p, &kind) || (*p && *p != ';') ||
	    type > 4) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (type >= 2 && (kind == 0 || kind > 8 || (kind & (kind - 1)) ||
			  (addr & (kind - 1)))) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (type == 0 || type == 1)
		kind = 1;
	for (i = 0; i < s->nbps; i++)
		if (s->bps[i].type == (enum replay_bp_type)type &&
		    s->bps[i].addr == addr && s->bps[i].len == kind)
			break;
	if (!insert) {
		if (i < s->nbps)
			s->bps[i] = s->bps[--s->nbps];
		gdb_send(&s->c, "OK");
		return;
	}
	if (i < s->nbps) {
		gdb_send(&s->c, "OK");
		return;
	}
	for (size_t j = 0; j < s->nbps; j++)
		nhw += s->bps[j].type != REPLAY_BP_SW;
	if (s->nbps == GDB_MAX_BPS || (type != 0 && nhw >= 4)) {
		gdb_send(&s->c, "E01");
		return;
	}
	s->bps[s->nbps++] =
		(struct replay_bp){(enum replay_bp_type)type, addr, kind};
	gdb_send(&s->c, "OK");
}

/* Whether gdb changed the task's registers to call a function in it
 * (print f(x)): it then runs as gdb wants, outside the replay, until gdb
 * puts the registers back. */
static bool diverted(struct gdb_server *s)
{
	struct ptask *t = gdb_task(s);
	struct user_regs_struct r;
	const struct user_regs_struct *o = &s->saved_regs.g;

	if (!s->regs_saved || !t || tracee_get_regs(&t->t, &r) < 0)
		return false;
	return r.rip != o->rip || r.rsp != o->rsp || r.rax != o->rax ||
	       r.rdi != o->rdi || r.rsi != o->rsi || r.rbp != o->rbp;
}

/* Runs the task for gdb's own call: gdb's breakpoints in place, its
 * syscalls refused (ENOSYS), until a breakpoint, a step or a signal. */
static void divert(struct gdb_server *s, bool step, char *reply, size_t len)
{
	struct ptask *t = gdb_task(s);
	static const uint8_t int3 = 0xcc;
	uint8_t saved[GDB_MAX_BPS];
	bool in[GDB_MAX_BPS] = {false};
	struct user_regs_struct r;
	siginfo_t si;
	int status = 0;

	for (size_t i = 0; i < s->nbps; i++)
		in[i] = !step && s->bps[i].type == REPLAY_BP_SW &&
			tracee_read_all(&t->t, s->bps[i].addr, &saved[i], 1) ==
				0 &&
			tracee_write_all(&t->t, s->bps[i].addr, &int3, 1) == 0;
	for (;;) {
		if (ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, t->t.tid, 0,
			   0) < 0 ||
		    tracee_wait(&t->t, &status) < 0 || !WIFSTOPPED(status)) {
			status = -1;
			break;
		}
		if ((status >> 16) != PTRACE_EVENT_SECCOMP ||
		    tracee_get_regs(&t->t, &r) < 0)
			break;
		r.orig_rax = (uint64_t)-1; /* not in the recording: refused */
		r.rax = (uint64_t)-ENOSYS;
		if (tracee_set_regs(&t->t, &r) < 0)
			break;
	}
	for (size_t i = s->nbps; i-- > 0;)
		if (in[i] &&
		    tracee_write_all(&t->t, s->bps[i].addr, &saved[i], 1) < 0)
			mrr_debug("breakpoint not removed after a call");
	if (status < 0) {
		mrr_err("pid %d died in a function gdb called; the replay "
			"cannot go on",
			s->tid);
		s->exited = true;
		s->rp.status = MRR_EXIT_SOFTWARE;
		snprintf(reply, len, "X09");
		return;
	}
	if (WSTOPSIG(status) == SIGTRAP &&
	    ptrace(PTRACE_GETSIGINFO, t->t.tid, 0, &si) == 0 &&
	    si.si_code == SI_KERNEL && tracee_get_regs(&t->t, &r) == 0) {
		r.rip--;
		if (tracee_set_regs(&t->t, &r) == 0) {
			snprintf(reply, len, "T05thread:%x;swbreak:;", s->tid);
			return;
		}
	}
	snprintf(reply, len, "T%02xthread:%x;", WSTOPSIG(status) & 0x7f,
		 s->tid);
}

static void resume(struct gdb_server *s, bool step)
{
	struct replay_stop want = {0};
	struct replay_stopped why;
	char reply[128];

	if (s->exited) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (diverted(s)) {
		divert(s, step, reply, sizeof(reply));
		snprintf(s->last_stop, sizeof(s->last_stop), "%s", reply);
		gdb_send(&s->c, reply);
		return;
	}
	gdb_undo_all(s);
	if (s->pending_hit) {
		s->pending_hit = false;
		snprintf(s->last_stop, sizeof(s->last_stop), "%s",
			 s->pending_stop);
		gdb_send(&s->c, s->pending_stop);
		return;
	}
	want.tid = s->tid;
	want.pid = s->pid;
	want.bps = s->bps;
	want.nbps = s->nbps;
	want.step = step;
	want.report_exit = true;
	s->interruptible = true;
	do
		gdb_run(s, &want, &why);
	while (why.why == REPLAY_STOP_EXEC && !s->exec_events);
	s->interruptible = false;
	gdb_stop_reply(s, &why, reply, sizeof(reply));
	if (s->interrupted) { /* ^C: stopped between two events */
		snprintf(reply, sizeof(reply), "T02thread:%x;", s->tid);
		snprintf(s->last_stop, sizeof(s->last_stop), "%s", reply);
	}
	gdb_send(&s->c, reply);
}

/* vCont;ACTION[:TID];... : the first step action's thread (the selected
 * one without a TID) steps; every other thread runs as the trace says. */
static void vcont(struct gdb_server *s, const char *a)
{
	bool step = false, any = false;

	while (*a == ';') {
		char act = a[1];
		uint64_t tid = 0;
		const char *p;

		if (act != 'c' && act != 's' && act != 'C' && act != 'S') {
			gdb_send(&s->c, "E01");
			return;
		}
		p = a + 2;
		if (act == 'C' || act == 'S') { /* the signal is the trace's */
			uint64_t sig;

			if (!hex_u64(&p, &sig)) {
				gdb_send(&s->c, "E01");
				return;
			}
		}
		if (*p == ':') {
			p++;
			if (*p == '-' && p[1] == '1')
				p += 2;
			else if (!hex_u64(&p, &tid)) {
				gdb_send(&s->c, "E01");
				return;
			}
		}
		if ((act == 's' || act == 'S') && !step) {
			/* a step of another thread: the trace runs until
			 * that thread moves (only one thread runs at once) */
			if (tid && gdb_thread_live(s, (pid_t)tid) &&
			    (pid_t)tid != s->tid) {
				gdb_undo_all(s);
				s->tid = (pid_t)tid;
			}
			step = true;
		}
		any = true;
		a = p;
	}
	if (*a || !any) {
		gdb_send(&s->c, "E01");
		return;
	}
	resume(s, step);
}

/* Hg TID selects the thread whose registers gdb reads (Hc: the replay
 * decides who runs); T TID: whether the thread lives. */
static void thread_packet(struct gdb_server *s, const char *pkt)
{
	const char *p = pkt[0] == 'H' ? pkt + 2 : pkt + 1;
	uint64_t tid = 0;

	if (s->exited || (pkt[0] == 'H' && !pkt[1])) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (!strcmp(p, "-1") || !strcmp(p, "0")) {
		gdb_send(&s->c, pkt[0] == 'T' ? "E01" : "OK");
		return;
	}
	if (!hex_u64(&p, &tid) || *p || !gdb_thread_live(s, (pid_t)tid)) {
		gdb_send(&s->c, "E01");
		return;
	}
	if (pkt[0] == 'H' && pkt[1] == 'g' && (pid_t)tid != s->tid) {
		gdb_undo_all(s); /* gdb's writes belong to the old thread */
		s->tid = (pid_t)tid;
	}
	gdb_send(&s->c, "OK");
}

static void query(struct gdb_server *s, const char *q)
{
	char buf[256];

	if (!strncmp(q, "qSupported", 10)) {
		s->exec_events = strstr(q, "exec-events+") != NULL;
		snprintf(buf, sizeof(buf), "%s%s",
			 "PacketSize=10000;qXfer:features:read+;"
			 "qXfer:auxv:read+;qXfer:exec-file:read+;"
			 "qXfer:libraries-svr4:read+;"
			 "qXfer:threads:read+;QStartNoAckMode+;"
			 "ReverseContinue+;ReverseStep+;swbreak+;"
			 "hwbreak+;vContSupported+",
			 s->exec_events ? ";exec-events+" : "");
		gdb_send(&s->c, buf);
	} else if (!strncmp(q, "qXfer:", 6)) {
		handle_xfer(s, q + 6);
	} else if (!strcmp(q, "qC")) {
		snprintf(buf, sizeof(buf), "QC%x", s->tid);
		gdb_send(&s->c, buf);
	} else if (!strcmp(q, "qfThreadInfo") || !strcmp(q, "qsThreadInfo")) {
		/* every live thread of the process, in one answer */
		static char list[4096];
		size_t m = 0;

		for (struct ptask *t = s->rp.tasks;
		     t && !s->exited && q[1] == 'f'; t = t->next)
			if (gdb_thread_live(s, t->rec_tid) &&
			    m + 16 < sizeof(list))
				m += (size_t)snprintf(
					list + m, sizeof(list) - m, "%c%x",
					m ? ',' : 'm', t->rec_tid);
		gdb_send(&s->c, m ? list : "l");
	} else if (!strncmp(q, "qAttached", 9)) {
		gdb_send(&s->c, "1");
	} else if (!strcmp(q, "qSymbol::")) {
		gdb_send(&s->c, "OK");
	} else if (!strcmp(q, "QStartNoAckMode")) {
		gdb_send(&s->c, "OK");
		s->c.no_ack = true;
	} else {
		gdb_send(&s->c, "");
	}
}

/* Returns 1 to go on, 0 when the session ends (status in *status). */
static int dispatch(struct gdb_server *s, char *pkt, size_t len, int *status)
{
	char reply[128];

	switch (pkt[0]) {
	case '?':
		gdb_send(&s->c, s->last_stop);
		return 1;
	case 'g':
	case 'G':
	case 'p':
	case 'P':
		regs_packet(s, pkt[0], pkt + 1);
		return 1;
	case 'm':
		read_memory(s, pkt + 1, false);
		return 1;
	case 'x':
		read_memory(s, pkt + 1, true);
		return 1;
	case 'M':
		write_memory(s, pkt + 1, len - 1, false);
		return 1;
	case 'X':
		write_memory(s, pkt + 1, len - 1, true);
		return 1;
	case 'Z':
	case 'z':
		breakpoint_packet(s, pkt[0] == 'Z', pkt + 1);
		return 1;
	case 'c':
	case 's':
		resume(s, pkt[0] == 's');
		return 1;
	case 'b':
		if (s->exited || (pkt[1] != 'c' && pkt[1] != 's') || pkt[2]) {
			gdb_send(&s->c, s->exited ? "E01" : "");
			return 1;
		}
		gdb_undo_all(s);
		if (pkt[1] == 'c')
			gdb_reverse_continue(s, reply, sizeof(reply));
		else
			gdb_reverse_step(s, reply, sizeof(reply));
		snprintf(s->last_stop, sizeof(s->last_stop), "%s", reply);
		gdb_send(&s->c, reply);
		return 1;
	case 'H':
	case 'T':
		thread_packet(s, pkt);
		return 1;
	case 'k':
		*status = 0;
		return 0;
	case 'D':
		gdb_send(&s->c, "OK");
		gdb_undo_all(s);
		*status = -1; /* finish the replay */
		return 0;
	case 'q':
	case 'Q':
		query(s, pkt);
		return 1;
	case 'v':
		if (!strncmp(pkt, "vCont?", 6)) {
			gdb_send(&s->c, "vCont;c;C;s;S");
		} else if (!strncmp(pkt, "vCont;", 5) && pkt[5] == ';') {
			vcont(s, pkt + 5);
		} else if (!strncmp(pkt, "vKill", 5)) {
			gdb_send(&s->c, "OK");
			*status = 0;
			return 0;
		} else if (!strncmp(pkt, "vRun", 4)) {
			if (gdb_restart(s, s->start_event) < 0) {
				gdb_send(&s->c, "E01");
			} else {
				snprintf(s->last_stop, sizeof(s->last_stop),
					 "T05thread:%x;", s->tid);
				gdb_send(&s->c, s->last_stop);
			}
		} else {
			gdb_send(&s->c, "");
		}
		return 1;
	default:
		gdb_send(&s->c, "");
		return 1;
	}
}

int gdb_serve(const struct replay_opts *o, const struct gdb_opts *g)
{
	static struct gdb_server srv;
	static char pkt[GDB_PACKET_MAX + 1];
	struct gdb_server *s = &srv;
	struct replay_stopped why;
	int lfd, port = g->port, status = 0, err;
	pid_t gdb_pid = 0;
	size_t len;

	s->o = o;
	s->g = g;
	lfd = gdb_listen(g, &port);
	if (lfd < 0)
		return -lfd;
	s->start_event = 1;
	if (gdb_find_start(s) < 0) {
		status = s->rp.status ? s->rp.status : MRR_EXIT_USAGE;
		goto out_close;
	}
	if (g->goto_event > s->start_event) {
		s->start_event = g->goto_event;
		s->start_held = false;
	}
	if (gdb_restart(s, s->start_event) < 0 || !gdb_task(s)) {
		if (!s->rp.status)
			mrr_err("trace %s: no process of the recording exists "
				"at event %" PRIu64,
				o->trace_dir, s->start_event);
		status = s->rp.status ? s->rp.status : MRR_EXIT_USAGE;
		goto out_close;
	}
	err = watchdog_start(&s->rp, o->stall_timeout_s < 0 ? 0
				     : o->stall_timeout_s
					     ? (unsigned)o->stall_timeout_s
					     : MRR_STALL_TIMEOUT_DEFAULT);
	if (err)
		mrr_debug("no replay watchdog: %s", strerror(-err));
	snprintf(s->last_stop, sizeof(s->last_stop), "T05thread:%x;", s->tid);
	s->c.fd = gdb_accept(lfd, g, port, &gdb_pid);
	close(lfd);
	lfd = -1;
	if (s->c.fd < 0) {
		status = MRR_EXIT_OSERR;
		goto out_close;
	}
	while (gdb_recv(&s->c, pkt, sizeof(pkt), &len) == 0)
		if (!dispatch(s, pkt, len, &status))
			break;
	close(s->c.fd);
	if (status < 0) { /* detached: the replay goes on to its end */
		status = 0;
		if (replay_run(&s->rp, NULL, &why) == 0)
			replay_finish(&s->rp);
		status = s->rp.status;
	} else if (s->exited && !s->rp.status) {
		replay_run(&s->rp, NULL, &why);
		status = replay_finish(&s->rp);
	} else {
		status = s->rp.status;
	}
out_close:
	if (lfd >= 0)
		close(lfd);
	watchdog_stop();
	checkpoints_free(s->cps);
	replay_close(&s->rp);
	if (gdb_pid > 0) {
		int st;

		while (waitpid(gdb_pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	return status;
}
