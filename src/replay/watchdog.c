/* The replay watchdog (watchdog.h). */
#include "replay/watchdog.h"

#include "core/proc.h"
#include "core/tracee.h"
#include "replay/ptask.h"
#include "syscalls/table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_t watchdog_thread;
static bool running;
static atomic_bool stop_requested, fired;
/* watchdog_stop wakes the thread from its tick at once: a replay's exit
 * must not wait out the rest of a 200 ms sleep. */
static pthread_mutex_t tick_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tick_cv = PTHREAD_COND_INITIALIZER;

struct watchdog_arg {
	struct replayer *rp;
	unsigned timeout_s;
};
static struct watchdog_arg warg;

struct task_state {
	char state;		/* R, S, D, t, ... or 0 if unknown */
	unsigned long long cpu; /* utime + stime, in clock ticks */
	char wchan[64];		/* kernel function it sleeps in, or "" */
	long syscall;		/* syscall it is in, -1 none, -2 unknown */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

static void read_task_state(pid_t tid, struct task_state *s)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	struct proc_syscall call;

	memset(s, 0, sizeof(*s));
	s->syscall = -2;
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	/* the command name may hold spaces and parentheses: skip to the last
	 * ')' */
	if (read_small(path, buf, sizeof(buf)) > 0 && (p = strrchr(buf, ')')) &&
	    p[1] == ' ') {
		s->state = p[2];
		/* fields after the state: ppid pgrp session tty tpgid flags
		 * minflt cminflt majflt cmajflt utime stime */
		if (sscanf(p + 3,
			   "%*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			   &ut, &st) == 2)
			s->cpu = ut + st;
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", tid);
	if (read_small(path, s->wchan, sizeof(s->wchan)) <= 0 ||
	    !strcmp(s->wchan, "0"))
		s->wchan[0] = 0;
	switch (proc_task_syscall(tid, &call)) {
	case 0:
		s->syscall = -1;
		break;
	case 1:
		s->syscall = call.nr;
		break;
	}
}

static const char *state_words(char state)
{
	switch (state) {
	case 'R':
		return "running";
	case 'S':
		return "sleeping in the kernel";
	case 'D':
		return "blocked in the kernel";
	case 't':
	case 'T':
		return "stopped";
	case 'Z':
		return "a zombie";
	default:
		return "in an unknown state";
	}
}

static void describe_task(pid_t tid, char *buf, size_t len)
{
	struct task_state s;
	const char *name;
	char in[96] = "";

	read_task_state(tid, &s);
	if (s.syscall >= 0) {
		name = mrr_syscall_name(s.syscall);
		snprintf(in, sizeof(in), " in %s", name ? name : "a syscall");
	}
	snprintf(buf, len, "%s%s%s%s%s", state_words(s.state), in,
		 s.wchan[0] ? " (kernel function " : "", s.wchan,
		 s.wchan[0] ? ")" : "");
}

static void report(struct replayer *rp, pid_t tid, long long waited_ns)
{
	char what[256], ev[192], who[64];
	struct ptask *t, *waited = NULL;

	for (t = rp->tasks; t; t = t->next)
		if (t->t.tid == tid)
			waited = t;
	describe_event(rp, &rp->ev, ev, sizeof(ev));
	describe_task(tid, what, sizeof(what));
	if (waited)
		task_name(rp, waited->rec_tid, who, sizeof(who));
	else
		snprintf(who, sizeof(who), "a task it does not know");
	fprintf(stderr,
		"mrr: replay is stuck at event %" PRIu64
		": mrr has waited %lld s for %s (live %s %d), which is %s\n",
		rp->ev.seq, waited_ns / 1000000000ll, who,
		who[0] == 't' ? "tid" : "pid", tid, what);
	fprintf(stderr, "mrr:   the event: %s\n", ev);
	for (t = rp->tasks; t; t = t->next) {
		if (t->t.tid == tid)
			continue;
		describe_task(t->t.tid, what, sizeof(what));
		task_name(rp, t->rec_tid, who, sizeof(who));
		fprintf(stderr, "mrr:   %s (live %s %d) is %s%s\n", who,
			who[0] == 't' ? "tid" : "pid", t->t.tid, what,
			t->stopped ? ", held by mrr until its next event"
			: t->fresh ? ", new and not yet let go by mrr"
				   : "");
	}
	fprintf(stderr, "mrr:   the replay stops here; the recording did not "
			"block at this point\n");
}

/* A task that runs user code for long without reaching its next event is
 * not stuck by the measure above (the recording may have computed as
 * long), but a replay that diverged into a loop looks the same: the
 * watchdog says so once, and lets it run. */
static void note_spin(struct replayer *rp, pid_t tid, long long waited_ns)
{
	char ev[192], who[64];
	struct ptask *t;

	snprintf(who, sizeof(who), "a task it does not know");
	for (t = rp->tasks; t; t = t->next)
		if (t->t.tid == tid)
			task_name(rp, t->rec_tid, who, sizeof(who));
	describe_event(rp, &rp->ev, ev, sizeof(ev));
	fprintf(stderr,
		"mrr: note: at event %" PRIu64 ", mrr has waited %lld s for %s "
		"(live %s %d), which keeps running its own code without "
		"reaching the event (%s); unless the recording computed this "
		"long here, the replay has gone astray: end it with Ctrl-C\n",
		rp->ev.seq, waited_ns / 1000000000ll, who,
		who[0] == 't' ? "tid" : "pid", tid, ev);
}

/* A wait this many stall timeouts long gets note_spin's note. */
#define SPIN_NOTE_TIMES 6

static void *watch(void *arg)
{
	struct watchdog_arg *a = arg;
	unsigned long gen = 0;
	unsigned long long cpu = 0;
	long long progress_ns = 0;
	unsigned long long cpu0 = 0; /* at the wait's start */
	long ticks = sysconf(_SC_CLK_TCK);
	bool noted = false;
	char state = 0;
	pid_t tid;

	while (!atomic_load(&stop_requested)) {
		struct timespec until;
		struct task_state s;
		long long now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000 * 1000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&tick_mu);
		if (!atomic_load(&stop_requested))
			pthread_cond_timedwait(&tick_cv, &tick_mu, &until);
		pthread_mutex_unlock(&tick_mu);
		if (atomic_load(&stop_requested))
			break;
		tid = tracee_waiting.tid;
		if (!tid)
			continue;
		now = now_ns();
		read_task_state(tid, &s);
		if (tracee_waiting.gen != gen) { /* a new wait */
			gen = tracee_waiting.gen;
			progress_ns = tracee_waiting.start_ns;
			cpu = s.cpu;
			state = s.state;
			cpu0 = s.cpu;
			noted = false;
		}
		/* it computed for a tenth of the wait at least (on a busy
		 * machine it gets a share of a processor; a blocked task
		 * none, and the stall report comes first) */
		if (!noted && ticks > 0 &&
		    now - tracee_waiting.start_ns >=
			    SPIN_NOTE_TIMES * a->timeout_s * 1000000000ll &&
		    (long long)(s.cpu - cpu0) * (1000000000ll / ticks) * 10 >=
			    now - tracee_waiting.start_ns) {
			note_spin(a->rp, tid, now - tracee_waiting.start_ns);
			noted = true;
		}
		/* a task that runs, uses CPU time or changes state (out of a
		 * long uninterruptible wait on a machine busy with I/O, into
		 * the stop mrr waits for) makes progress */
		if (s.state == 'R' || s.cpu != cpu || s.state != state) {
			progress_ns = now;
			cpu = s.cpu;
			state = s.state;
			continue;
		}
		if (now - progress_ns < a->timeout_s * 1000000000ll)
			continue;
		/* still the same wait, still not moving: report it, unless
		 * the task moved since this tick's look at it */
		read_task_state(tid, &s);
		if (s.state != state || s.cpu != cpu) {
			progress_ns = now;
			cpu = s.cpu;
			state = s.state;
			continue;
		}
		if (tracee_waiting.tid != tid || tracee_waiting.gen != gen)
			continue;
		report(a->rp, tid, now - tracee_waiting.start_ns);
		atomic_store(&fired, true);
		kill(tid, SIGKILL); /* so that the replayer's wait returns */
		break;
	}
	return NULL;
}

int watchdog_start(struct replayer *rp, unsigned timeout_s)
{
	sigset_t all, old;
	int err;

	if (!timeout_s)
		return 0;
	warg.rp = rp;
	warg.timeout_s = timeout_s;
	atomic_store(&stop_requested, false);
	atomic_store(&fired, false);
	/* the thread takes no signals: they stay with the replayer */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&watchdog_thread, NULL, watch, &warg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	running = true;
	return 0;
}

void watchdog_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&tick_mu);
	atomic_store(&stop_requested, true);
	pthread_cond_signal(&tick_cv);
	pthread_mutex_unlock(&tick_mu);
	pthread_join(watchdog_thread, NULL);
	running = false;
}

bool watchdog_fired(void)
{
	return atomic_load(&fired);
}
