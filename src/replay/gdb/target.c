/* The debugged task as gdb sees it: registers, gdb's undoable writes, stop
 * replies, and restarting the replay. */
#include "replay/gdb/target.h"

#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "replay/checkpoint.h"
#include "replay/replayer.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

struct ptask *gdb_task(struct gdb_server *s)
{
	return s->exited ? NULL : ptask_find(&s->rp, s->tid);
}

bool gdb_thread_live(struct gdb_server *s, pid_t rec_tid)
{
	struct ptask *t = ptask_find(&s->rp, rec_tid);

	return t && !t->dead && (!s->pid || t->tgid == s->pid);
}

void gdb_select(struct gdb_server *s, pid_t tid)
{
	if (tid && gdb_thread_live(s, tid)) {
		s->tid = tid;
		return;
	}
	if (gdb_thread_live(s, s->tid))
		return;
	for (struct ptask *t = s->rp.tasks; t; t = t->next)
		if (!t->dead && t->tgid == s->pid) {
			s->tid = t->rec_tid;
			return;
		}
}

/* Held at a syscall's entry stop: the next event's task run ahead, or a
 * thread parked where it let another run (sched.c). */
static bool held_at_syscall(struct gdb_server *s, struct ptask *t)
{
	(void)s;
	return t->held && (t->held_status >> 16) == PTRACE_EVENT_SECCOMP;
}

int gdb_get_regs(struct gdb_server *s, struct gdb_regs *r)
{
	struct ptask *t = gdb_task(s);

	if (!t || tracee_get_regs(&t->t, &r->g) < 0 ||
	    ptrace(PTRACE_GETFPREGS, t->t.tid, 0, &r->f) < 0)
		return -1;
	/* at a syscall's entry stop: the syscall instruction not yet run */
	if (held_at_syscall(s, t)) {
		r->g.rip -= 2;
		r->g.rax = r->g.orig_rax;
	}
	return 0;
}

int gdb_set_regs(struct gdb_server *s, const struct gdb_regs *r)
{
	struct ptask *t = gdb_task(s);
	struct gdb_regs cur;

	if (!t || held_at_syscall(s, t))
		return -1;
	if (!s->regs_saved) {
		if (gdb_get_regs(s, &cur) < 0)
			return -1;
		s->saved_regs = cur;
		s->regs_saved = true;
	}
	if (tracee_set_regs(&t->t, &r->g) < 0 ||
	    ptrace(PTRACE_SETFPREGS, t->t.tid, 0, &r->f) < 0)
		return -1;
	return 0;
}

void gdb_undo_all(struct gdb_server *s)
{
	struct ptask *t = gdb_task(s);

	while (s->nundo) {
		struct gdb_undo *u = &s->undo[--s->nundo];

		if (t && tracee_write_all(&t->t, u->addr, u->old, u->len) < 0)
			mrr_debug("cannot undo gdb's write at 0x%" PRIx64,
				  u->addr);
		free(u->old);
	}
	if (s->regs_saved && t &&
	    (tracee_set_regs(&t->t, &s->saved_regs.g) < 0 ||
	     ptrace(PTRACE_SETFPREGS, t->t.tid, 0, &s->saved_regs.f) < 0))
		mrr_debug("cannot undo gdb's register writes");
	s->regs_saved = false;
}

void gdb_stop_reply(struct gdb_server *s, const struct replay_stopped *why,
		    char *buf, size_t buflen)
{
	const char *kind = "watch";
	int st;

	if (why->why != REPLAY_STOP_END && why->why != REPLAY_STOP_ERROR)
		gdb_select(s, why->tid);

	switch (why->why) {
	case REPLAY_STOP_BREAKPOINT:
		snprintf(buf, buflen, "T05thread:%x;%s:;", s->tid,
			 why->bp >= 0 && s->bps[why->bp].type == REPLAY_BP_HW
				 ? "hwbreak"
				 : "swbreak");
		break;
	case REPLAY_STOP_WATCH:
		if (why->bp >= 0 && s->bps[why->bp].type == REPLAY_WATCH_R)
			kind = "rwatch";
		else if (why->bp >= 0 &&
			 s->bps[why->bp].type == REPLAY_WATCH_RW)
			kind = "awatch";
		snprintf(buf, buflen, "T05thread:%x;%s:%" PRIx64 ";", s->tid,
			 kind, why->addr);
		break;
	case REPLAY_STOP_EXEC: {
		/* gdb loads the new program: its path, hex-encoded */
		char link[64], path[256], hex[2 * sizeof(path) + 1];
		struct ptask *t = gdb_task(s);
		ssize_t n = -1;

		if (t) {
			snprintf(link, sizeof(link), "/proc/%d/exe", t->t.tid);
			n = readlink(link, path, sizeof(path) - 1);
		}
		if (n < 0)
			n = 0;
		hex_encode(hex, path, (size_t)n);
		hex[2 * n] = 0;
		snprintf(buf, buflen, "T05thread:%x;exec:%s;", s->tid, hex);
		break;
	}
	case REPLAY_STOP_EXIT:
		/* the end of the program as gdb can still look at it: the
		 * task stands at its exit; continuing replays the exit */
		snprintf(buf, buflen, "T09thread:%x;", s->tid);
		break;
	case REPLAY_STOP_END:
	case REPLAY_STOP_ERROR:
		s->exited = true;
		st = s->rp.exit_reported ? s->rp.last_exit_status : 0;
		if (why->why == REPLAY_STOP_ERROR || s->rp.status)
			snprintf(buf, buflen, "W%02x", s->rp.status & 0xff);
		else if (WIFSIGNALED(st))
			snprintf(buf, buflen, "X%02x", WTERMSIG(st));
		else
			snprintf(buf, buflen, "W%02x", WEXITSTATUS(st));
		break;
	default:
		snprintf(buf, buflen, "T05thread:%x;", s->tid);
	}
	snprintf(s->last_stop, sizeof(s->last_stop), "%s", buf);
}

/* A new session at the start of the trace, with its checkpoint set. */
static int reopen(struct gdb_server *s)
{
	int err;

	checkpoints_free(s->cps);
	s->cps = NULL;
	if (s->rp.r)
		replay_close(&s->rp);
	err = replay_open(&s->rp, s->o);
	if (err) {
		s->rp.status = err;
		return -1;
	}
	s->cps = checkpoints_new(&s->rp, 0, 0);
	s->last_checkpoint = 0;
	return 0;
}

/* Events between checkpoints: GDB_CHECKPOINT_EVERY, or
 * MRR_GDB_CHECKPOINT_EVERY from the environment (tests use small ones). */
static uint64_t checkpoint_every(void)
{
	static uint64_t every;

	if (!every) {
		const char *v = getenv("MRR_GDB_CHECKPOINT_EVERY");

		every = v && atoll(v) > 0 ? (uint64_t)atoll(v)
					  : GDB_CHECKPOINT_EVERY;
	}
	return every;
}

/* A checkpoint every checkpoint_every() events, where one can be taken
 * (an event boundary with no task held ahead). */
static void maybe_checkpoint(struct gdb_server *s)
{
	struct replay_pos pos;
	struct checkpoint *cp;

	if (!s->cps || s->rp.status || replay_held_task(&s->rp) ||
	    s->rp.nreplayed < s->last_checkpoint + checkpoint_every())
		return;
	replay_position(&s->rp, &pos);
	if (pos.unit != REPLAY_AT_EVENT)
		return;
	s->last_checkpoint = s->rp.nreplayed;
	if (checkpoint_take(s->cps, &cp) < 0)
		mrr_debug("no checkpoint at event %" PRIu64 ": %s",
			  s->rp.nreplayed, checkpoints_why_not(s->cps));
}

int gdb_run(struct gdb_server *s, const struct replay_stop *want,
	    struct replay_stopped *why)
{
	static const struct replay_stop nothing;
	struct replay_stop chunk = want ? *want : nothing;
	uint64_t limit = chunk.before_event;

	s->interrupted = false;
	for (;;) {
		uint64_t next;

		maybe_checkpoint(s);
		next = (s->rp.nreplayed > s->last_checkpoint
				? s->rp.nreplayed
				: s->last_checkpoint) +
		       checkpoint_every();
		/* a look at the connection every few hundred events */
		if (s->interruptible && next > s->rp.nreplayed + 256)
			next = s->rp.nreplayed + 256;
		chunk.before_event = limit && limit <= next ? limit : next;
		if (!s->cps && !s->interruptible)
			chunk.before_event = limit;
		if (replay_run(&s->rp, &chunk, why) < 0)
			return -1;
		if (why->why != REPLAY_STOP_EVENT ||
		    (limit && s->rp.nreplayed >= limit))
			return 0;
		if (s->interruptible && s->c.fd > 0 &&
		    gdb_take_interrupt(&s->c)) {
			s->interrupted = true;
			return 0;
		}
	}
}

int gdb_restart(struct gdb_server *s, uint64_t start)
{
	struct replay_stop want = {0};
	struct replay_stopped why;
	uint64_t echoed = s->rp.nreplayed > s->rp.echo_from ? s->rp.nreplayed
							    : s->rp.echo_from;

	if (!start)
		start = 1;
	gdb_undo_all(s);
	if (!s->rp.r || !s->cps) {
		if (reopen(s) < 0)
			return -1;
	} else if (checkpoint_restore(
			   s->cps, checkpoint_nearest_before(s->cps, start))) {
		mrr_debug("checkpoint restore failed: replaying from the "
			  "start");
		if (reopen(s) < 0)
			return -1;
	}
	s->rp.echo_from = echoed;
	s->exited = false;
	s->pending_hit = false;
	want.before_event = start;
	if (s->rp.nreplayed < start && gdb_run(s, &want, &why) < 0)
		return -1;
	if (s->start_held && start == s->start_event &&
	    replay_hold(&s->rp, NULL, NULL) < 0)
		return -1;
	if (!s->tid && s->rp.tasks)
		s->tid = s->rp.tasks->rec_tid;
	if (!s->pid && gdb_task(s))
		s->pid = gdb_task(s)->tgid;
	gdb_select(s, 0); /* going back: the thread may not exist yet */
	return 0;
}

int gdb_find_start(struct gdb_server *s)
{
	const struct gdb_opts *g = s->g;

	if (!g->pid && !g->onexec)
		return 0;
	if (gdb_restart(s, 1) < 0)
		return -1;
	for (;;) {
		const struct mrr_event *ev = &s->rp.ev;
		int k = replay_peek(&s->rp);

		if (k < 0)
			return -1;
		if (k == 0)
			break;
		if (g->pid && ev->tid == g->pid) {
			s->tid = g->pid;
			s->pid = 0; /* that task's process */
			s->start_event = ev->seq;
			s->start_held = true;
			return 0;
		}
		if (g->onexec && ev->kind == MRR_EV_EXEC &&
		    ev->extra_len > sizeof(struct mrr_exec_extra)) {
			const char *path = (const char *)ev->extra +
					   sizeof(struct mrr_exec_extra);
			size_t n =
				ev->extra_len - sizeof(struct mrr_exec_extra);
			char name[256];
			const char *base;

			snprintf(name, sizeof(name), "%.*s", (int)n, path);
			base = strrchr(name, '/') ? strrchr(name, '/') + 1
						  : name;
			if (!strcmp(base, g->onexec)) {
				s->tid = ev->tid;
				s->pid = 0;
				s->start_event = ev->seq + 1;
				return 0;
			}
		}
		if (replay_step(&s->rp) < 0)
			return -1;
	}
	if (g->pid)
		mrr_err("trace %s: no process %d in the recording",
			s->o->trace_dir, g->pid);
	else
		mrr_err("trace %s: no process of the recording runs a "
			"program named %s",
			s->o->trace_dir, g->onexec);
	s->rp.status = MRR_EXIT_USAGE;
	return -1;
}
