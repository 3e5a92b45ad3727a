/* Checkpoints of a replay without gdb, for tests and bench/checkpoint.sh.
 *
 *   replay_checkpoint [OPTIONS] TRACE EVENT...
 *
 * Pass 0 replays the trace to its end, taking a checkpoint at each EVENT
 * (ascending) on the way. Then, for each EVENT from the last to the first,
 * the session goes back to it (checkpoint_goto: the nearest checkpoint at
 * or before it, then forward) and replays to the end again. Every pass
 * verifies every event as `mrr replay` does. The program's stdout of pass
 * k goes to OUT.k (--out OUT; default: discarded), and each later pass
 * must repeat pass 0's output from the point of its EVENT exactly.
 *
 * Options:
 *   --restart   no fork checkpoints: every going back restarts the replay
 *   --max N     keep at most N fork checkpoints (default 8)
 *   --every K   also take a checkpoint every K events in pass 0 (the set
 *               then thins out, dropping many on the way)
 *   --bench     print timings and the memory of the forked copies
 *
 * Exit status: 0 when every pass verified and repeated its output, 1 when
 * the output differed, 2 for bad usage, else the replay's MRR_EXIT_* code.
 */
#include "core/exitcodes.h"
#include "replay/checkpoint.h"
#include "replay/cleanup.h"
#include "replay/ptask.h"
#include "replay/replayer.h"
#include "replay/session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t event_now(struct replayer *rp)
{
	struct replay_pos pos;

	replay_position(rp, &pos);
	return pos.event;
}

/* Replays forward until event `until` (UINT64_MAX: the end). Returns 0,
 * or the session's status. */
static int run_until(struct replayer *rp, uint64_t until)
{
	int k = 1;

	while (event_now(rp) < until && (k = replay_step(rp)) > 0)
		;
	return k < 0 ? replay_status(rp) : 0;
}

/* Sum of a field (kB) of /proc/PID/smaps_rollup over pids. */
static uint64_t smaps_kb(const pid_t *pids, size_t n, const char *field)
{
	char path[64], line[256];
	size_t flen = strlen(field);
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pids[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, field, flen) && line[flen] == ':')
				sum += strtoull(line + flen + 1, NULL, 10);
		fclose(f);
	}
	return sum;
}

static size_t live_pids(struct replayer *rp, pid_t *pids, size_t n)
{
	size_t k = 0;

	for (struct ptask *t = rp->tasks; t && k < n; t = t->next)
		pids[k++] = t->t.tid;
	return k;
}

/* Points fd 1 at OUT.k (or /dev/null). Returns 0 or -1. */
static int redirect(const char *out, unsigned k)
{
	char path[4096];
	int fd;

	fflush(stdout);
	if (out)
		snprintf(path, sizeof(path), "%s.%u", out, k);
	fd = open(out ? path : "/dev/null",
		  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, 1) < 0) {
		perror(out ? path : "/dev/null");
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether OUT.k equals OUT.0 from byte offset `from`. */
static int same_suffix(const char *out, unsigned k, off_t from)
{
	char a[4096], b[4096], pa[4096], pb[4096];
	FILE *fa, *fb;
	size_t na, nb;
	int same = 1;

	snprintf(pa, sizeof(pa), "%s.0", out);
	snprintf(pb, sizeof(pb), "%s.%u", out, k);
	fa = fopen(pa, "re");
	fb = fopen(pb, "re");
	if (!fa || !fb || fseeko(fa, from, SEEK_SET) < 0)
		same = 0;
	while (same) {
		na = fread(a, 1, sizeof(a), fa);
		nb = fread(b, 1, sizeof(b), fb);
		if (na != nb || memcmp(a, b, na))
			same = 0;
		if (!na)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static int usage(void)
{
	fprintf(stderr, "usage: replay_checkpoint [--restart] [--max N] "
			"[--every K] [--bench] [--out OUT] TRACE EVENT...\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t events[MAX_EVENTS], every = 0;
	off_t marks[MAX_EVENTS];
	unsigned flags = 0, max = 0, nev = 0, i, taken = 0;
	const char *out = NULL;
	struct replay_opts o = {0};
	struct replayer rp;
	struct checkpoints *s;
	int bench = 0, status = 0, ai;
	double t0, t_fwd = 0, t_take = 0, t_span = 0, t_restore = 0,
		   t_respan = 0;

	for (ai = 1; ai < argc && argv[ai][0] == '-'; ai++) {
		if (!strcmp(argv[ai], "--restart"))
			flags |= CHECKPOINT_RESTART_ONLY;
		else if (!strcmp(argv[ai], "--bench"))
			bench = 1;
		else if (!strcmp(argv[ai], "--max") && ai + 1 < argc)
			max = (unsigned)strtoul(argv[++ai], NULL, 10);
		else if (!strcmp(argv[ai], "--every") && ai + 1 < argc)
			every = strtoull(argv[++ai], NULL, 10);
		else if (!strcmp(argv[ai], "--out") && ai + 1 < argc)
			out = argv[++ai];
		else
			return usage();
	}
	if (argc - ai < 2)
		return usage();
	o.trace_dir = argv[ai++];
	for (; ai < argc && nev < MAX_EVENTS; ai++) {
		events[nev] = strtoull(argv[ai], NULL, 10);
		if (events[nev] == 0 || (nev && events[nev] <= events[nev - 1]))
			return usage();
		nev++;
	}
	replay_cleanup_install();
	if ((status = replay_open(&rp, &o)))
		return status;
	s = checkpoints_new(&rp, max, flags);
	if (!s || redirect(out, 0) < 0)
		return MRR_EXIT_OSERR;

	/* pass 0: to the end, checkpoints on the way (at each EVENT, and
	 * with --every at each multiple of K too) */
	t0 = now_s();
	for (i = 0; i < nev; i++)
		marks[i] = -1;
	for (i = 0; !status;) {
		uint64_t target = i < nev ? events[i] : UINT64_MAX;
		struct checkpoint *cp;
		pid_t pids[64];
		uint64_t saved = 0;
		double t1;
		int err, is_event;

		if (every && (event_now(&rp) / every + 1) * every < target)
			target = (event_now(&rp) / every + 1) * every;
		if (target == UINT64_MAX)
			break;
		status = run_until(&rp, target);
		if (status || event_now(&rp) < target)
			break;
		is_event = i < nev && target == events[i];
		if (is_event && i == 0)
			t_fwd = now_s() - t0;
		t1 = now_s();
		err = checkpoint_take(s, &cp);
		if (is_event && i == 0)
			t_take = now_s() - t1;
		taken += !err;
		if (!is_event) {
			if (err && !(flags & CHECKPOINT_RESTART_ONLY))
				fprintf(stderr,
					"event %" PRIu64
					": no checkpoint: %s\n",
					target, checkpoints_why_not(s));
			continue;
		}
		marks[i++] = lseek(1, 0, SEEK_CUR);
		if (i == nev)
			t0 = now_s(); /* the span replayed again */
		if (err) {
			fprintf(stderr,
				"event %" PRIu64 ": no checkpoint: %s\n",
				target, checkpoints_why_not(s));
			continue;
		}
		fprintf(stderr,
			"event %" PRIu64 ": checkpoint taken (%zu processes)\n",
			target, checkpoint_copies(cp, NULL, 0, NULL));
		if (bench && i == 1) {
			size_t nc = checkpoint_copies(cp, pids, 64, &saved);
			pid_t lp[64];
			size_t nl = live_pids(&rp, lp, 64);

			fprintf(stderr,
				"bench: take_s %.6f fwd_s %.6f processes %zu "
				"live_rss_kb %" PRIu64 " live_pss_kb %" PRIu64
				" copies_rss_kb %" PRIu64
				" copies_pss_kb %" PRIu64
				" saved_bytes %" PRIu64 "\n",
				t_take, t_fwd, nc, smaps_kb(lp, nl, "Rss"),
				smaps_kb(lp, nl, "Pss"),
				smaps_kb(pids, nc, "Rss"),
				smaps_kb(pids, nc, "Pss"), saved);
		}
	}
	if (!status)
		status = run_until(&rp, UINT64_MAX);
	t_span = now_s() - t0;
	if (!status)
		status = replay_finish(&rp);
	if (every)
		fprintf(stderr,
			"%u checkpoints taken, %zu kept at the end (the "
			"start included)\n",
			taken, checkpoints_count(s));

	/* passes 1..: back to each EVENT, last first, and to the end again */
	for (i = nev; i-- > 0 && !status;) {
		unsigned k = nev - i;
		struct checkpoint *cp = checkpoint_nearest_before(s, events[i]);

		if (redirect(out, k) < 0)
			return MRR_EXIT_OSERR;
		t0 = now_s();
		status = checkpoint_goto(s, events[i]);
		if (k == nev)
			t_restore = now_s() - t0;
		if (status)
			break;
		fprintf(stderr,
			"back to event %" PRIu64
			" (from the checkpoint at event %" PRIu64 ")\n",
			events[i], checkpoint_event(cp));
		t0 = now_s();
		status = run_until(&rp, UINT64_MAX);
		if (k == nev)
			t_respan = now_s() - t0;
		if (!status)
			status = replay_finish(&rp);
		if (!status && out && marks[i] >= 0 &&
		    !same_suffix(out, k, marks[i])) {
			fprintf(stderr,
				"replay_checkpoint: the output after going "
				"back "
				"to event %" PRIu64 " differs (%s.%u)\n",
				events[i], out, k);
			status = 1;
		}
	}
	if (bench)
		fprintf(stderr,
			"bench: span_s %.6f restore_s %.6f respan_s %.6f\n",
			t_span, t_restore, t_respan);
	checkpoints_free(s);
	replay_close(&rp);
	replay_tmpdir_remove();
	return status;
}
