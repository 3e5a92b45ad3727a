/* Recording one traced syscall: what to do at entry (seccomp stop), and what
 * memory the kernel wrote, found at exit from the syscall table's rules or,
 * for the irregular calls, by the hand-written code below. */
#define _GNU_SOURCE
#include "core/clone_untraced.h"
#include "core/events.h"
#include "core/exitcodes.h"
#include "core/log.h"
#include "core/proc.h"
#include "core/written_digest.h"
#include "record/backtrace.h"
#include "record/preempt.h"
#include "record/eintr.h"
#include "record/rtask.h"
#include "record/vptrace.h"
#include "syscalls/table.h"
#include "syscallbuf/abi.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#define MAX_CAPTURE (1ull << 30) /* one write larger than this is refused */

void capture_reset(struct capture *c)
{
	c->nwrites = 0;
	c->used = 0;
	c->extra_len = 0;
	c->secret_addr = 0;
	c->refused = false;
}

/* Whether addr of task tid lies in a mapping of a memfd_secret file, whose
 * pages nobody but the program can read. */
static bool in_secret_mapping(pid_t tid, uint64_t addr)
{
	char path[64], line[512];
	unsigned long long lo, hi;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo &&
		    addr < hi) {
			found = strstr(line, " /secretmem") != NULL;
			break;
		}
	fclose(f);
	return found;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;
	size_t ncap = *cap ? *cap : 4096;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*buf, ncap);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

/* Copies len bytes at addr in the task into the capture. Unreadable memory
 * (a bad pointer the kernel also could not write) is skipped. Data pointers
 * hold arena offsets until rec_write_event fixes them up. */
int capture_add(struct capture *c, struct rtask *t, uint64_t addr, uint64_t len)
{
	ssize_t n;

	if (!addr || !len)
		return 0;
	if (len > MAX_CAPTURE)
		return -E2BIG;
	if (c->nwrites == sizeof(c->writes) / sizeof(c->writes[0]))
		return -E2BIG;
	if (grow(&c->data, &c->cap, c->used + len))
		return -ENOMEM;
	n = tracee_read(&t->t, addr, c->data + c->used, len);
	if (n < (ssize_t)len && !c->secret_addr &&
	    in_secret_mapping(t->t.tid, addr + (n > 0 ? (uint64_t)n : 0)))
		c->secret_addr = addr + (n > 0 ? (uint64_t)n : 0);
	if (n <= 0)
		return 0;
	c->writes[c->nwrites].addr = addr;
	c->writes[c->nwrites].len = (uint64_t)n;
	c->writes[c->nwrites].data = (const void *)(uintptr_t)c->used;
	c->nwrites++;
	c->used += (size_t)n;
	return 0;
}

int capture_put(struct capture *c, uint64_t addr, const void *data,
		uint64_t len)
{
	if (!len)
		return 0;
	if (len > MAX_CAPTURE ||
	    c->nwrites == sizeof(c->writes) / sizeof(c->writes[0]))
		return -E2BIG;
	if (grow(&c->data, &c->cap, c->used + len))
		return -ENOMEM;
	memcpy(c->data + c->used, data, len);
	c->writes[c->nwrites].addr = addr;
	c->writes[c->nwrites].len = len;
	c->writes[c->nwrites].data = (const void *)(uintptr_t)c->used;
	c->nwrites++;
	c->used += len;
	return 0;
}

int capture_extra(struct capture *c, const void *data, size_t len)
{
	if (grow(&c->extra, &c->extra_cap, c->extra_len + len))
		return -ENOMEM;
	memcpy(c->extra + c->extra_len, data, len);
	c->extra_len += len;
	return 0;
}

/* A chunk at least every 250 ms, so that a recorder killed by surprise
 * leaves a salvageable prefix however slowly events come. */
static int flush_now_and_then(struct recorder *rec)
{
	static struct timespec last;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if ((now.tv_sec - last.tv_sec) * 1000 +
		    (now.tv_nsec - last.tv_nsec) / 1000000 <
	    250)
		return 0;
	last = now;
	return mrr_trace_writer_flush(rec->w);
}

void rec_write_event(struct recorder *rec, struct rtask *t,
		     struct mrr_event *ev, struct capture *c)
{
	uint32_t i;
	int err;

	if (c->refused)
		return;
	if (c->secret_addr) {
		const char *name = mrr_syscall_name(ev->nr);

		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d's %s wrote into memfd_secret memory at 0x%llx "
			 "at event %llu; nobody but the program can read that "
			 "memory, so mrr cannot record what the kernel put "
			 "there, and the recording stops here",
			 ev->tid,
			 ev->kind == MRR_EV_SYSCALL && name ? name : "event",
			 (unsigned long long)c->secret_addr,
			 (unsigned long long)mrr_trace_writer_events(rec->w));
		return;
	}
	for (i = 0; i < c->nwrites; i++)
		c->writes[i].data = c->data + (uintptr_t)c->writes[i].data;
	ev->writes = c->writes;
	ev->nwrites = c->nwrites;
	ev->extra = c->extra;
	ev->extra_len = (uint32_t)c->extra_len;
	if (rec->write_err)
		return;
	err = mrr_trace_writer_append(rec->w, ev, &ev->seq);
	if (!err)
		err = flush_now_and_then(rec);
	if (err)
		rec->write_err = err < -999 ? -EIO : err;
	else if (t)
		rec_preempt_after_event(rec, t, ev);
}

static uint64_t ev_count(struct recorder *rec)
{
	return mrr_trace_writer_events(rec->w);
}

/* The syscall does not run; the task sees -err (or the given result). */
static void skip_syscall(struct recorder *rec, struct rtask *t, int64_t result)
{
	struct capture c = {0};

	rec_skip_syscall(rec, t, result, &c);
}

void rec_skip_event(struct recorder *rec, struct rtask *t, int64_t result,
		    struct capture *c)
{
	struct mrr_event ev = {0};
	struct user_regs_struct r = t->entry_regs;

	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)result;
	if (tracee_set_regs(&t->t, &r) < 0)
		return;
	ev.kind = MRR_EV_SYSCALL;
	ev.flags = MRR_EVF_SKIPPED;
	ev.tid = t->t.tid;
	ev.ip = t->entry_regs.rip;
	ev.nr = t->nr;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.result = result;
	rec_write_event(rec, t, &ev, c);
	t->exit_regs = r;
	t->have_exit_regs = true;
	t->last_result = result;
}

void rec_skip_syscall(struct recorder *rec, struct rtask *t, int64_t result,
		      struct capture *c)
{
	rec_skip_event(rec, t, result, c);
	if (!rec_vptrace_exit(rec, t, true))
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
}

/* Size of the mapping that starts at addr, or 0. */
static uint64_t vma_size_at(struct rtask *t, uint64_t addr)
{
	struct proc_vma *v;
	long n = proc_read_vmas(t->t.tid, false, &v), i;
	uint64_t size = 0;

	for (i = 0; i < n; i++)
		if (v[i].start == addr)
			size = v[i].end - v[i].start;
	if (n > 0)
		free(v);
	return size;
}

static bool overlaps_mrr_page(uint64_t start, uint64_t len)
{
	return len && start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
	       start + len > MRR_PAGE_ADDR && start + len > start;
}

/* Whether the call is a munmap, mprotect or madvise of nothing but (part
 * of) mrr's page. */
static bool within_mrr_page(const struct rtask *t)
{
	const uint64_t *a = t->args;
	uint64_t len = (a[1] + 4095) & ~4095ull;

	switch (t->nr) {
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
	case SYS_madvise:
		return !(a[0] & 4095) && len && a[0] >= MRR_PAGE_ADDR &&
		       a[0] + len <= MRR_PAGE_ADDR + MRR_PAGE_SIZE;
	}
	return false;
}

/* The end of x86-64's user address space (TASK_SIZE with 4-level page
 * tables): munmap fails with EINVAL for a range that goes past it. */
#define USER_TOP 0x7ffffffff000ull

/* Whether the call would unmap, move or change mrr's page, which buffered
 * syscalls and replay's injected syscalls need. */
static bool touches_mrr_page(const struct rtask *t)
{
	const uint64_t *a = t->args;

	switch (t->nr) {
	case SYS_munmap:
		/* a range the kernel refuses (EINVAL) touches nothing:
		 * stress-ng's mmap stressor tries such calls */
		if ((a[0] & 4095) || !a[1] || a[1] > USER_TOP - 4095 ||
		    a[0] > USER_TOP - ((a[1] + 4095) & ~4095ull))
			return false;
		return overlaps_mrr_page(a[0], a[1]);
	case SYS_mprotect:
	case SYS_pkey_mprotect:
	case SYS_madvise:
		return overlaps_mrr_page(a[0], a[1]);
	case SYS_mremap:
		return overlaps_mrr_page(a[0], a[1]) ||
		       ((a[3] & MREMAP_FIXED) && overlaps_mrr_page(a[4], a[2]));
	case SYS_mmap:
		return (a[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)) &&
		       overlaps_mrr_page(a[0], a[1]);
	case SYS_shmat: {
		struct shmid_ds ds;
		/* the segment's size, as mrr can see it; else any size */
		uint64_t size = shmctl((int)a[0], IPC_STAT, &ds) == 0
					? ds.shm_segsz
					: MRR_PAGE_ADDR;

		return (a[2] & SHM_REMAP) && overlaps_mrr_page(a[1], size);
	}
	}
	return false;
}

void rec_syscall_entry(struct recorder *rec, struct rtask *t)
{
	const struct mrr_syscall_desc *d;
	char memfile[256];
	int64_t skip_result;
	int i;

	if (tracee_get_regs(&t->t, &t->entry_regs) < 0)
		return;
	t->nr = (long)t->entry_regs.orig_rax;
	for (i = 0; i < 6; i++)
		t->args[i] = regs_arg(&t->entry_regs, i);
	if (t->vp && rec_vptrace_entry(rec, t))
		return; /* held at a syscall-entry stop for its tracer */
	if (rec_output_wait(rec, t))
		return;
	t->have_exit_regs = false;
	rec_eintr_entry(t);
	rec_sbuf_flush(rec, t);
	switch (t->nr) {
	case MRR_SYSCALL_REGISTER:
		skip_syscall(rec, t, rec_sbuf_register(rec, t));
		return;
	case MRR_SYSCALL_FLUSH: /* rec_sbuf_flush above did the work */
		skip_syscall(rec, t, 0);
		return;
	case MRR_SYSCALL_DESYNC:
		skip_syscall(rec, t, -ENOSYS);
		return;
	case SYS_seccomp:
		rec_sbuf_no_probe(t);
		break;
	case SYS_prctl:
		if (t->args[0] == PR_SET_SECCOMP ||
		    t->args[0] == PR_SET_SYSCALL_USER_DISPATCH)
			rec_sbuf_no_probe(t);
		break;
	}
	/* the kernel makes this check before seccomp's */
	if (rec_sud_entry(rec, t) || rec_sud_prctl(rec, t) ||
	    rec_virt_strict_kill(rec, t) || rec_exec_nnp(t))
		return;
	d = mrr_syscall_lookup(t->nr);

	if (!d || d->cls == MRR_SC_UNKNOWN) {
		/* The kernel answers ENOSYS, and programs probe with such
		 * numbers: run it; rec_syscall_exit checks the answer. */
		t->in_syscall = true;
		ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0);
		return;
	}
	if (d->cls == MRR_SC_UNSUPPORTED) {
		const char *why = mrr_syscall_refusal(t->nr);

		if (why)
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d called %s at event %llu; %s, so the "
				 "recording stops here",
				 t->t.tid, d->name,
				 (unsigned long long)ev_count(rec), why);
		else
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "unsupported syscall %s (%ld) at event %llu",
				 d->name, t->nr,
				 (unsigned long long)ev_count(rec));
		return;
	}
	if (rec_writes_proc_mem(t, memfile, sizeof(memfile))) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d writes into %s (like /proc/self/mem) at event "
			 "%llu; such writes bypass mrr, so the recording stops "
			 "here",
			 t->t.tid, memfile, (unsigned long long)ev_count(rec));
		return;
	}
	if (within_mrr_page(t)) {
		/* The page is mrr's, not the program's: on it these calls
		 * act as on memory that is not mapped. Nothing else is hit,
		 * so nothing else needs doing (a program that unmaps every
		 * mapping it finds in /proc/self/maps, as stress-ng does). */
		skip_syscall(rec, t, t->nr == SYS_munmap ? 0 : -ENOMEM);
		return;
	}
	if (t->nr == SYS_munmap &&
	    page_around_applies(t->args[0], t->args[1])) {
		struct user_regs_struct r = t->entry_regs;

		/* everything but mrr's page goes (core/page_around.h) */
		if (page_around_entry(&t->t, &r, &t->around) < 0)
			return; /* gone */
	} else if (touches_mrr_page(t) || rec_iov_touches_mrr_page(t)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called %s on mrr's page at 0x%llx at event "
			 "%llu; mrr needs that page, so the recording stops "
			 "here",
			 t->t.tid, d && d->name ? d->name : "a syscall",
			 (unsigned long long)MRR_PAGE_ADDR,
			 (unsigned long long)ev_count(rec));
		return;
	}
	if (rec_virt_filter_denied(rec, t) || !rec_seccomp_entry(rec, t))
		return;
	if (rec_signals_mrr(t)) {
		skip_syscall(rec, t, 0);
		return;
	}
	if (rec_dumpable_entry(rec, t, &skip_result)) {
		skip_syscall(rec, t, skip_result);
		return;
	}
	if (rec_virt_entry(rec, t) || rec_ioctl_entry(rec, t) ||
	    rec_cmds_entry(rec, t))
		return;
	switch (t->nr) {
	case SYS_rseq: /* the kernel would write cpu ids at random times */
		skip_syscall(rec, t, -ENOSYS);
		return;
	case SYS_ptrace:
		/* A process has one tracer, and mrr is it: the program's own
		 * tracing is emulated (vptrace.h). */
		rec_vptrace_call(rec, t);
		return;
	case SYS_wait4:
	case SYS_waitid:
		if (rec_vptrace_wait_entry(rec, t))
			return;
		break;
	case SYS_clone:
	case SYS_clone3:
		t->untraced_cleared =
			mrr_clone_clear_untraced(&t->t, t->nr,
						 &t->entry_regs) == 1;
		break;
	case SYS_shmdt:
		t->shm_size = vma_size_at(t, t->args[0]);
		break;
	case SYS_process_vm_writev:
		if (rec_vm_writev_entry(rec, t))
			return;
		break;
	case SYS_exit:
	case SYS_exit_group:
		t->exiting = true;
		if (!rec_vptrace_exit_event(rec, t))
			ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	case SYS_madvise:
		rec_madvise_entry(rec, t);
		break;
	}
	for (i = 0; i < MRR_SC_MAX_OUT; i++) {
		const struct mrr_out_rule *r = &d->out[i];
		uint32_t len = 0;

		if (r->kind == MRR_OUT_LENPTR_BEFORE ||
		    r->kind == MRR_OUT_LENPTR_AFTER) {
			if (tracee_read_all(&t->t, t->args[r->len_arg], &len,
					    4) < 0)
				len = 0;
		}
		t->lenptr_before[i] = len;
	}
	t->in_syscall = true;
	if (rec_self_signal(t)) {
		t->exit_at_signal = true;
		ptrace(PTRACE_CONT, t->t.tid, 0, 0);
		return;
	}
	ptrace(PTRACE_SYSCALL, t->t.tid, 0, 0);
}

static void capture_rules(struct rtask *t, const struct mrr_syscall_desc *d,
			  int64_t result, struct capture *c)
{
	int i;

	for (i = 0; i < MRR_SC_MAX_OUT; i++) {
		const struct mrr_out_rule *r = &d->out[i];
		uint32_t after = 0;
		uint64_t len;

		if (r->kind == MRR_OUT_NONE)
			continue;
		if (r->kind == MRR_OUT_LENPTR_AFTER &&
		    tracee_read_all(&t->t, t->args[r->len_arg], &after, 4) < 0)
			after = 0;
		len = mrr_out_rule_len(r, t->args, result, t->lenptr_before[i],
				       after);
		capture_add(c, t, t->args[r->ptr_arg], len);
	}
}

/* Scatter buffers (readv family): the first `total` bytes land in order. */
static void capture_iov(struct rtask *t, uint64_t iov_addr, uint64_t iovcnt,
			uint64_t total, struct capture *c)
{
	struct iovec iov;
	uint64_t i;

	for (i = 0; i < iovcnt && i < 1024 && total > 0; i++) {
		uint64_t n;

		if (tracee_read_all(&t->t, iov_addr + i * sizeof(iov), &iov,
				    sizeof(iov)) < 0)
			return;
		n = iov.iov_len < total ? iov.iov_len : total;
		capture_add(c, t, (uint64_t)(uintptr_t)iov.iov_base, n);
		total -= n;
	}
}

static void capture_msghdr(struct rtask *t, uint64_t addr, uint64_t bytes,
			   struct capture *c)
{
	struct {
		uint64_t name;
		uint32_t namelen, pad0;
		uint64_t iov, iovlen, control, controllen;
		uint32_t flags, pad1;
	} m;

	if (tracee_read_all(&t->t, addr, &m, sizeof(m)) < 0)
		return;
	capture_add(c, t, addr, sizeof(m));
	capture_add(c, t, m.name, m.namelen);
	capture_add(c, t, m.control, m.controllen);
	capture_iov(t, m.iov, m.iovlen, bytes, c);
}

/* Whether t's fd is open for reading only (its fdinfo's flags). */
static bool fd_read_only(struct rtask *t, int fd)
{
	char path[64], line[128];
	long flags = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid, fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags:", 6))
			flags = strtol(line + 6, NULL, 8);
	fclose(f);
	return flags >= 0 && (flags & O_ACCMODE) == O_RDONLY;
}

static void capture_special(struct recorder *rec, struct rtask *t,
			    int64_t result, struct capture *c)
{
	uint64_t *a = t->args;

	switch (t->nr) {
	case SYS_mmap:
		rec_mmap_exit(rec, t, c);
		return;
	case SYS_madvise:
		rec_madvise_exit(rec, t, c);
		return;
	}
	/* too small a handle: the kernel wrote the size it needs into the
	 * struct's header (handle_bytes, handle_type), and the program
	 * allocates that much next */
	if (t->nr == SYS_name_to_handle_at && result == -EOVERFLOW) {
		capture_add(c, t, a[2], 8);
		return;
	}
	if (rec_family_capture(t, result, c) ||
	    rec_cmds_capture(t, result, c) || result < 0)
		return;
	switch (t->nr) {
	case SYS_readv:
	case SYS_preadv:
	case SYS_preadv2:
		capture_iov(t, a[1], a[2], (uint64_t)result, c);
		break;
	case SYS_recvmsg:
		capture_msghdr(t, a[1], (uint64_t)result, c);
		break;
	case SYS_vmsplice:
		/* from a pipe's read end, the pipe's bytes into the vectors;
		 * to a write end, nothing */
		if (fd_read_only(t, (int)a[0]))
			capture_iov(t, a[1], a[2], (uint64_t)result, c);
		break;
	case SYS_recvmmsg: {
		int64_t i;

		for (i = 0; i < result; i++) {
			uint32_t len = 0;
			uint64_t m = a[1] + (uint64_t)i * 64;

			if (tracee_read_all(&t->t, m + 56, &len, 4) < 0)
				break;
			capture_msghdr(t, m, len, c);
			capture_add(c, t, m + 56, 4);
		}
		break;
	}
	case SYS_wait4:
		capture_add(c, t, a[1], 4);
		capture_add(c, t, a[3], 144);
		break;
	case SYS_waitid:
		capture_add(c, t, a[2], 128);
		capture_add(c, t, a[4], 144);
		break;
	case SYS_poll:
		capture_add(c, t, a[0], a[1] * 8);
		break;
	case SYS_ppoll:
		capture_add(c, t, a[0], a[1] * 8);
		capture_add(c, t, a[2], 16);
		break;
	case SYS_select:
	case SYS_pselect6: {
		uint64_t sz = ((a[0] + 63) / 64) * 8;

		capture_add(c, t, a[1], sz);
		capture_add(c, t, a[2], sz);
		capture_add(c, t, a[3], sz);
		capture_add(c, t, a[4], 16);
		break;
	}
	case SYS_prctl:
		if (a[0] == 16 /* PR_GET_NAME */)
			capture_add(c, t, a[1], 16);
		else if (a[0] == 2 /* PR_GET_PDEATHSIG */ ||
			 a[0] == 37 /* PR_GET_CHILD_SUBREAPER */)
			capture_add(c, t, a[1], 4);
		else if (a[0] == 40 /* PR_GET_TID_ADDRESS */)
			capture_add(c, t, a[1], 8);
		break;
	case SYS_shmat: {
		struct mrr_shm_extra x = {vma_size_at(t, (uint64_t)result)};
		int err;

		/* the replay maps shared memory there and fills it */
		capture_extra(c, &x, sizeof(x));
		err = rec_capture_shm(rec, t, (uint64_t)result, x.size, c);
		if (err) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d attached a shared memory segment of "
				 "%llu bytes at event %llu whose contents mrr "
				 "cannot record (%s), so the recording stops "
				 "here",
				 t->t.tid, (unsigned long long)x.size,
				 (unsigned long long)ev_count(rec),
				 err == -E2BIG ? "more than 1 GiB of data"
					       : strerror(-err));
			c->refused = true;
		}
		break;
	}
	case SYS_shmdt: {
		struct mrr_shm_extra x = {t->shm_size};

		capture_extra(c, &x, sizeof(x));
		break;
	}
	case SYS_shmctl:
		/* IPC_STAT, IPC_INFO, SHM_STAT, SHM_INFO, SHM_STAT_ANY */
		if ((a[1] & 0xff) == 2 || (a[1] & 0xff) == 3 ||
		    ((a[1] & 0xff) >= 13 && (a[1] & 0xff) <= 15))
			capture_add(c, t, a[2], 112);
		break;
	case SYS_futex:
		if ((a[1] & 0x7f) == 5 /* FUTEX_WAKE_OP */)
			capture_add(c, t, a[4], 4);
		break;
	case SYS_get_mempolicy:
		capture_add(c, t, a[0], 4);
		capture_add(c, t, a[1], ((a[2] + 63) / 64) * 8);
		break;
	case SYS_name_to_handle_at: {
		uint32_t bytes = 0;

		if (tracee_read_all(&t->t, a[2], &bytes, 4) == 0 &&
		    bytes <= 128)
			capture_add(c, t, a[2], 8 + bytes);
		capture_add(c, t, a[3], 4);
		break;
	}
	case SYS_process_vm_readv:
		capture_iov(t, a[1], a[2], (uint64_t)result, c);
		break;
	case SYS_process_vm_writev:
		rec_vm_writev_exit(rec, t, result, c);
		break;
	case SYS_arch_prctl:
		if (a[0] == 0x1003 /* ARCH_GET_FS */ ||
		    a[0] == 0x1004 /* ARCH_GET_GS */)
			capture_add(c, t, a[1], 8);
		break;
	}
}

/* restart_syscall resumed the call saved in t->restart_*: what the kernel
 * wrote is that call's out-parameters (a poll's revents, a nanosleep's
 * remaining time). */
static void capture_restarted(struct recorder *rec, struct rtask *t,
			      int64_t result, struct capture *c)
{
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(t->restart_nr);
	uint64_t args[6];

	if (!d)
		return;
	memcpy(args, t->args, sizeof(args));
	memcpy(t->args, t->restart_args, sizeof(args));
	t->nr = t->restart_nr;
	if (d->cls == MRR_SC_SPECIAL)
		capture_special(rec, t, result, c);
	else
		capture_rules(t, d, result, c);
	t->nr = SYS_restart_syscall;
	memcpy(t->args, args, sizeof(args));
}

/* An interrupted syscall: note which signals are pending, so the replay
 * can interrupt it the same way. */
static void capture_pending(struct rtask *t, struct capture *c)
{
	struct mrr_interrupted_extra x = {0};
	struct proc_sigmasks m;

	if (proc_sigmasks(t->t.tid, &m) < 0)
		return;
	x.pending = m.pending;
	c->extra_len = 0;
	capture_extra(c, &x, sizeof(x));
}

uint32_t echo_flags(struct recorder *rec, struct rtask *t, uint64_t fd)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", t->t.tid, (int)fd);
	if (stat(path, &st) < 0)
		return 0;
	if (st.st_dev == rec->out_id.dev && st.st_ino == rec->out_id.ino)
		return MRR_EVF_TO_STDOUT;
	if (st.st_dev == rec->err_id.dev && st.st_ino == rec->err_id.ino)
		return MRR_EVF_TO_STDERR;
	return 0;
}

/* A write into a file some recorded process maps: the replay must put the
 * same bytes into its copy of that file, or the mappings would miss them. */
static void capture_file_write(struct recorder *rec, struct rtask *t,
			       int64_t result, struct capture *c)
{
	struct mrr_file_write_extra x = {0};
	const struct stored_file *sf;
	char path[64], line[128];
	uint64_t pos = 0, size;
	FILE *f;

	sf = rec_stored_for_fd(rec, t, (int)t->args[0], &size, &x.ident);
	if (!sf)
		return;
	if (t->nr == SYS_pwrite64 || t->nr == SYS_pwritev ||
	    t->nr == SYS_pwritev2) {
		pos = t->args[3];
	} else {
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", t->t.tid,
			 (int)t->args[0]);
		f = fopen(path, "re");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "pos:", 4))
				pos = strtoull(line + 4, NULL, 10);
		fclose(f);
		pos -= (uint64_t)result;
	}
	memcpy(x.file, sf->name, sizeof(x.file));
	x.offset = pos;
	capture_extra(c, &x, sizeof(x));
}

/* The digest of the bytes a write took (core/written_digest.h), after the
 * event's other extra bytes. Returns MRR_EVF_DIGEST, or 0 when the bytes
 * cannot be read (the replay then has nothing to check). */
static uint32_t capture_written_digest(struct rtask *t, int64_t result,
				       struct capture *c)
{
	unsigned char le[8];
	uint64_t d;
	int i;

	if (written_digest(&t->t, t->nr, t->args, (uint64_t)result, &d) < 0)
		return 0;
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(d >> (8 * i));
	if (capture_extra(c, le, sizeof(le)) < 0)
		return 0;
	return MRR_EVF_DIGEST;
}

static void write_syscall_event(struct recorder *rec, struct rtask *t,
				int64_t result, uint32_t flags,
				struct capture *c)
{
	struct mrr_event ev = {0};

	ev.kind = MRR_EV_SYSCALL;
	ev.flags = flags;
	ev.tid = t->t.tid;
	ev.ip = t->entry_regs.rip;
	ev.nr = t->nr;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.result = result;
	rec_write_event(rec, t, &ev, c);
}

/* record --backtrace: who made this memory syscall. */
static void maybe_backtrace(struct recorder *rec, struct rtask *t)
{
	struct mrr_event ev = {0};
	struct capture c = {0};
	char bt[4096];

	switch (t->nr) {
	case SYS_madvise:
	case SYS_process_madvise:
	case SYS_mlock:
	case SYS_mlock2:
	case SYS_munlock:
	case SYS_mlockall:
	case SYS_munlockall:
		break;
	default:
		return;
	}
	if (mrr_backtrace(t->t.tid, bt, sizeof(bt)) <= 0)
		return;
	capture_extra(&c, bt, strlen(bt));
	ev.kind = MRR_EV_BACKTRACE;
	ev.tid = t->t.tid;
	ev.ip = t->entry_regs.rip;
	rec_write_event(rec, t, &ev, &c);
	free(c.extra);
}

void rec_syscall_exit(struct recorder *rec, struct rtask *t)
{
	static struct capture c;
	const struct mrr_syscall_desc *d = mrr_syscall_lookup(t->nr);
	struct user_regs_struct regs;
	uint32_t flags = 0;
	int64_t result;

	if (tracee_get_regs(&t->t, &regs) < 0)
		return;
	rec_seccomp_exit(t, &regs);
	rec_virt_exit(t, &regs);
	result = (int64_t)regs.rax;
	if (t->around.active) {
		if (page_around_exit(&t->t, &t->around, &result) < 0 ||
		    tracee_get_regs(&t->t, &regs) < 0)
			return; /* gone */
	}
	t->last_result = result;
	if (!d && result != -ENOSYS) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called syscall %ld, which mrr does not know, "
			 "at event %llu, and the kernel ran it (result %lld, "
			 "not ENOSYS); mrr cannot replay what it did",
			 t->t.tid, t->nr, (unsigned long long)ev_count(rec),
			 (long long)result);
		return;
	}
	capture_reset(&c);
	if (t->nr == SYS_restart_syscall && t->restart_saved)
		capture_restarted(rec, t, result, &c);
	else if (d && d->cls == MRR_SC_SPECIAL)
		capture_special(rec, t, result, &c);
	else if (d)
		capture_rules(t, d, result, &c);
	if (t->nr == SYS_rt_sigreturn) {
		/* rax as the frame holds it, not an interrupted call's */
	} else if (result == -516 /* ERESTART_RESTARTBLOCK */) {
		if (t->nr != SYS_restart_syscall) {
			t->restart_saved = true;
			t->restart_nr = t->nr;
			memcpy(t->restart_args, t->args, sizeof(t->args));
		}
	} else if (t->nr == SYS_restart_syscall) {
		t->restart_saved = false;
	}
	if (result > 0)
		rec_status_mend_capture(rec, t, &c);
	if (result <= -512 && result >= -516 && t->nr != SYS_rt_sigreturn)
		capture_pending(t, &c);
	switch (t->nr) {
	case SYS_write:
	case SYS_writev:
	case SYS_pwrite64:
	case SYS_pwritev:
	case SYS_pwritev2:
		if (result > 0) {
			flags |= echo_flags(rec, t, t->args[0]);
			if (!flags && rec->nstored)
				capture_file_write(rec, t, result, &c);
			flags |= capture_written_digest(t, result, &c);
		}
		break;
	case SYS_ftruncate:
	case SYS_fallocate:
		rec_file_resize_exit(rec, t, &c);
		break;
	}
	write_syscall_event(rec, t, result, flags, &c);
	if (rec->backtrace)
		maybe_backtrace(rec, t);
	t->exit_regs = regs;
	t->have_exit_regs = true;
	/* after rt_sigreturn, no call is there to restart */
	t->last_result = t->nr == SYS_rt_sigreturn ? 0 : result;
}

void rec_fork_event(struct recorder *rec, struct rtask *t, pid_t child)
{
	static struct capture c;
	uint64_t flags = 0, ptid = 0, pidfd_ptr = 0;

	capture_reset(&c);
	if (t->nr == SYS_clone) {
		flags = t->args[0];
		ptid = t->args[2];
		pidfd_ptr = t->args[2]; /* CLONE_PIDFD reuses parent_tid */
	} else if (t->nr == SYS_clone3) {
		uint64_t ca[4];

		if (tracee_read_all(&t->t, t->args[0], ca, sizeof(ca)) == 0) {
			flags = ca[0];
			pidfd_ptr = ca[1];
			ptid = ca[3];
		}
	}
	if ((flags & CLONE_PARENT_SETTID) && ptid)
		capture_add(&c, t, ptid, 4);
	/* the pidfd's number: replay must give the program the recorded one */
	if ((flags & CLONE_PIDFD) && pidfd_ptr)
		capture_add(&c, t, pidfd_ptr, 4);
	if (t->nr == SYS_clone || t->nr == SYS_clone3) {
		struct mrr_clone_extra x = {.flags = flags};

		capture_extra(&c, &x, sizeof(x));
	}
	write_syscall_event(rec, t, child, 0, &c);
}
