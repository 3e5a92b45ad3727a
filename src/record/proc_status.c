/* What a recorded program reads from /proc/PID/status (or
 * /proc/PID/task/TID/status, self and thread-self included) of a recorded
 * task shows that task's own settings, not mrr's: "NoNewPrivs:" its
 * no_new_privs as it set it, "Seccomp:" its seccomp mode (strict mode is
 * emulated, and mrr's filter is no mode of the program's),
 * "Seccomp_filters:" its own filters, without mrr's, and "TracerPid:" no
 * tracer: mrr's pid gives way to a 0 right-aligned after spaces in the
 * same width, which parsers of numbers read as 0 (the kernel writes no
 * spaces there). The bytes are mended where the kernel put them, in the
 * program's memory, and the recorded bytes are the mended ones, so the
 * replay delivers them too.
 *
 * Reads through the ptrace path are mended at their exit; buffered reads
 * of a /proc file whose data holds one of the words make the preload
 * library flag their record and flush at once (syscallbuf/abi.h), and the
 * flush mends them before the program gets them. Other values change only
 * where their width stays the same: a count of filters that would lose a
 * digit (10 of the program's own plus mrr's reads 11) stays as the kernel
 * wrote it. Lines cut in two by the program's read size are left as they
 * are (README "Limits"). */
#define _GNU_SOURCE
#include "record/rtask.h"
#include "syscallbuf/abi.h"
#include "syscallbuf/status_scan.h"

#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* The recorded task whose status file t's fd reads, or NULL. */
static struct rtask *status_owner(struct recorder *rec, struct rtask *t,
				  uint64_t fd)
{
	char path[64], link[128], tail[16];
	struct statfs sf;
	struct rtask *o;
	int pid, tid, n;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, (int)fd);
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return NULL;
	link[len] = 0;
	n = -1;
	if (sscanf(link, "/proc/%d/task/%d/%15s%n", &pid, &tid, tail, &n) ==
		    3 &&
	    n == len) {
		pid = tid;
	} else {
		n = -1;
		if (sscanf(link, "/proc/%d/%15s%n", &pid, tail, &n) != 2 ||
		    n != len)
			return NULL;
	}
	if (strcmp(tail, "status") || statfs(path, &sf) < 0 ||
	    sf.f_type != PROC_SUPER_MAGIC)
		return NULL;
	for (o = rec->tasks; o; o = o->next)
		if (o->t.tid == pid) {
			rec_virt_init(o);
			return o;
		}
	return NULL;
}

/* Writes the decimal v over the digits at p[0..n) when it takes exactly n
 * digits, or with pad, when it takes at most n, right-aligned after spaces.
 * Returns 1 when a byte changed. */
static int put_digits(unsigned char *p, size_t n, long v, bool pad)
{
	char s[24];
	int changed, k;

	k = v < 0 ? -1 : snprintf(s, sizeof(s), "%*ld", pad ? (int)n : 0, v);
	if (k != (int)n)
		return 0;
	changed = memcmp(p, s, n) != 0;
	memcpy(p, s, n);
	return changed;
}

/* Mends the n bytes at p as owner's status would read natively. Returns 1
 * when a byte changed. */
static int mend(unsigned char *p, size_t n, const struct rtask *owner)
{
	static const struct {
		const char *word;
		int which;
	} lines[] = {
		{"NoNewPrivs:", 0},
		{"Seccomp:", 1},
		{"Seccomp_filters:", 2},
		{"TracerPid:", 3},
	};
	int changed = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
			size_t w = strlen(lines[l].word), d, e;
			long real = 0, want;

			/* a line of its own: at the start, or after '\n' */
			if ((i && p[i - 1] != '\n') || n - i < w ||
			    memcmp(p + i, lines[l].word, w))
				continue;
			for (d = i + w; d < n && (p[d] == ' ' || p[d] == '\t');
			     d++)
				;
			for (e = d; e < n && p[e] >= '0' && p[e] <= '9'; e++)
				real = real * 10 + (p[e] - '0');
			/* only a whole number (its line's end is in the data)
			 */
			if (e == d || e == n || p[e] != '\n' || e - d > 9)
				continue;
			switch (lines[l].which) {
			case 0:
				want = owner->virt.nnp;
				break;
			case 1:
				want = owner->virt.seccomp;
				break;
			case 2: /* every task has mrr's filter below its own */
				want = owner->virt.seccomp == 2 ? real - 1 : 0;
				break;
			default: /* mrr is the tracer; natively none is */
				want = 0;
				break;
			}
			changed |= put_digits(p + d, e - d, want,
					      lines[l].which == 3);
		}
	}
	return changed;
}

static bool reads_file(long nr)
{
	return nr == SYS_read || nr == SYS_pread64 || nr == SYS_readv ||
	       nr == SYS_preadv || nr == SYS_preadv2;
}

void rec_status_mend_capture(struct recorder *rec, struct rtask *t,
			     struct capture *c)
{
	struct rtask *owner;
	uint64_t start, len = 0;
	unsigned char *p;

	if (!reads_file(t->nr) || !c->nwrites)
		return;
	/* The capture holds the call's data alone, each vector's bytes after
	 * the one before (capture_iov): one stream, lines may straddle. */
	start = (uintptr_t)c->writes[0].data;
	for (uint32_t i = 0; i < c->nwrites; i++) {
		if ((uintptr_t)c->writes[i].data != start + len)
			return;
		len += c->writes[i].len;
	}
	p = c->data + start;
	if (!mrr_status_has_token(p, len))
		return;
	owner = status_owner(rec, t, t->args[0]);
	if (!owner || !mend(p, len, owner))
		return;
	for (uint32_t i = 0; i < c->nwrites; i++) {
		const struct mrr_mem_write *w = &c->writes[i];

		if (tracee_write_all(&t->t, w->addr,
				     c->data + (uintptr_t)w->data, w->len) < 0)
			return;
	}
}

void rec_status_mend_record(struct recorder *rec, struct rtask *t,
			    const struct mrr_syscallbuf_rec *r, uint8_t *data)
{
	struct rtask *owner;
	struct iovec iov;
	uint64_t done = 0;

	if (!(r->pad & MRR_SYSCALLBUF_REC_MEND) || !reads_file(r->nr) ||
	    !r->data_len || !mrr_status_has_token(data, r->data_len))
		return;
	owner = status_owner(rec, t, r->args[0]);
	if (!owner || !mend(data, r->data_len, owner))
		return;
	if (r->nr != SYS_readv) {
		if (tracee_write_all(&t->t, r->args[1], data, r->data_len) < 0)
			return;
		return;
	}
	/* the data went into the vectors in order */
	for (uint64_t i = 0; i < r->args[2] && done < r->data_len; i++) {
		uint64_t k;

		if (tracee_read_all(&t->t, r->args[1] + i * sizeof(iov), &iov,
				    sizeof(iov)) < 0)
			return;
		k = iov.iov_len < r->data_len - done ? iov.iov_len
						     : r->data_len - done;
		if (k &&
		    tracee_write_all(&t->t, (uint64_t)(uintptr_t)iov.iov_base,
				     data + done, k) < 0)
			return;
		done += k;
	}
}
