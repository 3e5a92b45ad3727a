/* process_vm_writev: a program writing into the memory of another of its
 * own recorded processes (or of itself). The replay must make the same
 * write into that process, at this event, so the recorder stores where the
 * bytes went and the bytes themselves (struct mrr_vm_write_extra, see
 * src/core/events.h); a write into a process outside the recording needs
 * nothing but the result. A write of more than MRR_VM_WRITE_MAX bytes does
 * not fit an extra: its ranges and bytes become the event's writes (at the
 * target's addresses) and the extra says only which process (nranges 0).
 * Writes into mrr's page are refused. */
#include "core/events.h"
#include "core/exitcodes.h"
#include "record/rtask.h"
#include "syscallbuf/abi.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#define MAX_IOV 1024 /* UIO_MAXIOV: the kernel refuses more */
/* a write too big for an event's extra becomes the event's writes: one
 * per remote range, and as many bytes as mrr holds in memory for one
 * event (struct capture) */
#define MAX_BIG_RANGES 64
#define MAX_BIG_TOTAL  (1ull << 30)

static unsigned long long events(struct recorder *rec)
{
	return (unsigned long long)mrr_trace_writer_events(rec->w);
}

/* The recorded process with thread group id (or thread id) pid, or NULL. */
static struct rtask *recorded(struct recorder *rec, pid_t pid)
{
	struct rtask *t;

	for (t = rec->tasks; t; t = t->next)
		if (t->t.tid == pid || t->tgid == pid)
			return t;
	return NULL;
}

/* Reads n iovecs of t at addr; returns n or -1. */
static long read_iovs(struct rtask *t, uint64_t addr, uint64_t n,
		      struct iovec **out)
{
	struct iovec *v;

	*out = NULL;
	if (n == 0)
		return 0;
	if (n > MAX_IOV)
		return -1;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -1;
	if (tracee_read_all(&t->t, addr, v, n * sizeof(*v)) < 0) {
		free(v);
		return -1;
	}
	*out = v;
	return (long)n;
}

/* The total length of n iovecs of t at addr into *out: 0, or -1 when the
 * kernel fails the call for them (unreadable, too many, or more than
 * SSIZE_MAX bytes). */
static int iovs_total(struct rtask *t, uint64_t addr, uint64_t n, uint64_t *out)
{
	struct iovec *v;
	long m = read_iovs(t, addr, n, &v), i;

	*out = 0;
	if (m < 0)
		return -1;
	for (i = 0; i < m; i++) {
		if (v[i].iov_len > (uint64_t)SSIZE_MAX - *out) {
			free(v);
			return -1;
		}
		*out += v[i].iov_len;
	}
	free(v);
	return 0;
}

bool rec_vm_writev_entry(struct recorder *rec, struct rtask *t)
{
	struct iovec *r;
	uint64_t total = 0, local;
	long n, i, nonempty = 0;

	if (!recorded(rec, (pid_t)t->args[0]))
		return false; /* outside the recording: only the result */
	if (iovs_total(t, t->args[1], t->args[2], &local) < 0)
		return false; /* the kernel answers EINVAL or EFAULT */
	n = read_iovs(t, t->args[3], t->args[4], &r);
	if (n < 0)
		return false;
	for (i = 0; i < n; i++) {
		uint64_t b = (uint64_t)(uintptr_t)r[i].iov_base;

		if (r[i].iov_len > (uint64_t)SSIZE_MAX - total) {
			free(r);
			return false; /* EINVAL: more than SSIZE_MAX bytes */
		}
		total += r[i].iov_len;
		nonempty += r[i].iov_len != 0;
		if (r[i].iov_len && b < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		    b + r[i].iov_len > MRR_PAGE_ADDR) {
			free(r);
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d called process_vm_writev into mrr's "
				 "page at 0x%llx of pid %d at event %llu; mrr "
				 "needs that page, so the recording stops here",
				 t->t.tid, (unsigned long long)MRR_PAGE_ADDR,
				 (int)t->args[0], events(rec));
			return true;
		}
	}
	free(r);
	/* the kernel copies no more than the local vectors hold */
	if (local < total)
		total = local;
	/* a big write goes into the event's writes, one per remote range */
	if (total > MRR_VM_WRITE_MAX &&
	    (nonempty > MAX_BIG_RANGES || total > MAX_BIG_TOTAL)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called process_vm_writev of %llu bytes into "
			 "%ld ranges of pid %d at event %llu; mrr records a "
			 "write of more than %u bytes into another process "
			 "only in at most %d ranges and %llu bytes, so the "
			 "recording stops here",
			 t->t.tid, (unsigned long long)total, nonempty,
			 (int)t->args[0], events(rec), MRR_VM_WRITE_MAX,
			 MAX_BIG_RANGES, (unsigned long long)MAX_BIG_TOTAL);
		return true;
	}
	return false;
}

/* The first `want` bytes of the caller's local buffers (l, nl) into data;
 * returns how many it read. */
static size_t read_local(struct rtask *t, const struct iovec *l, long nl,
			 uint8_t *data, size_t want)
{
	uint64_t li = 0, loff = 0;
	size_t used = 0;

	while (used < want && li < (uint64_t)nl) {
		uint64_t len = l[li].iov_len - loff;

		if (len > want - used)
			len = want - used;
		if (len &&
		    tracee_read_all(&t->t,
				    (uint64_t)(uintptr_t)l[li].iov_base + loff,
				    data + used, len) < 0)
			break;
		used += len;
		loff += len;
		if (loff == l[li].iov_len) {
			li++;
			loff = 0;
		}
	}
	return used;
}

void rec_vm_writev_exit(struct recorder *rec, struct rtask *t, int64_t result,
			struct capture *c)
{
	struct mrr_vm_write_extra x = {0};
	struct iovec *l = NULL, *r = NULL;
	uint64_t left, off = 0;
	uint8_t *data = NULL;
	bool big = (uint64_t)result > MRR_VM_WRITE_MAX;
	long nl, nr, i;
	size_t used;

	if (result <= 0 || !recorded(rec, (pid_t)t->args[0]))
		return;
	nl = read_iovs(t, t->args[1], t->args[2], &l);
	nr = read_iovs(t, t->args[3], t->args[4], &r);
	data = malloc((size_t)result);
	if (nl < 0 || nr < 0 || !data)
		goto out;
	used = read_local(t, l, nl, data, (size_t)result);
	if (used != (size_t)result) {
		/* the kernel read them a moment ago: only a racing munmap
		 * by another thread could do this */
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d: cannot read back what its process_vm_writev "
			 "wrote into pid %d at event %llu",
			 t->t.tid, (int)t->args[0], events(rec));
		goto out;
	}
	/* the remote ranges the first `result` bytes went to: in the extra
	 * with the bytes after them, or, for a write too big for an extra,
	 * as the event's writes at the target's addresses (nranges 0) */
	x.target = (int32_t)t->args[0];
	left = (uint64_t)result;
	for (i = 0; !big && i < nr && left; i++) {
		uint64_t len = r[i].iov_len < left ? r[i].iov_len : left;

		if (!len)
			continue;
		x.nranges++;
		left -= len;
	}
	capture_extra(c, &x, sizeof(x));
	left = (uint64_t)result;
	for (i = 0; i < nr && left; i++) {
		uint64_t rg[2];

		rg[1] = r[i].iov_len < left ? r[i].iov_len : left;
		if (!rg[1])
			continue;
		rg[0] = (uint64_t)(uintptr_t)r[i].iov_base;
		if (!big) {
			capture_extra(c, rg, sizeof(rg));
		} else if (capture_put(c, rg[0], data + off, rg[1]) < 0) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d: mrr ran out of memory for the "
				 "%llu bytes its process_vm_writev wrote into "
				 "pid %d at event %llu",
				 t->t.tid, (unsigned long long)result,
				 (int)t->args[0], events(rec));
			c->extra_len = 0;
			goto out;
		}
		off += rg[1];
		left -= rg[1];
	}
	if (!big)
		capture_extra(c, data, used);
out:
	free(data);
	free(l);
	free(r);
}
