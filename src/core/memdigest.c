/* A digest of a process's writable memory (memdigest.h). */
#define _GNU_SOURCE /* process_vm_readv */
#include "core/memdigest.h"

#include "core/proc.h"
#include "core/tracee.h"
#include "syscallbuf/abi.h"
#include "trace/xxh64.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <time.h>
#include <unistd.h>

#define PAGE	   4096ull
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE	   (1ull << 61)
/* Bytes above the highest word of a task's stack that points into the
 * syscall buffer library that are left out with it: the frame of the
 * library's outermost function lies above its callees' return addresses. */
#define LIBFRAME_MARGIN 1024ull
/* How far above rsp the library's frames are looked for. */
#define LIBFRAME_SCAN (256ull << 10)
/* Pages read from the process at a time. */
#define READ_PAGES 64
/* pagemap entries read at a time. */
#define PM_BATCH 4096
#define MAX_SKIP 256

struct skip {
	uint64_t start, end; /* page aligned */
};

struct digest_ctx {
	struct skip skip[MAX_SKIP];
	int nskip;
	uint64_t lib_lo, lib_hi; /* the library's code */
	uint64_t sbuf_end;	 /* the end of the last syscall buffer seen */
	/* MEM_DIGEST_SP_EXACT: the page of the stack pointer of the task at
	 * the point, hashed with its bytes below cut as zeroes */
	uint64_t part_page, part_cut;
};

static const char *(*file_namer)(void *ctx, const char *path);
static void *file_namer_ctx;

void mem_digest_set_file_namer(const char *(*namer)(void *ctx,
						    const char *path),
			       void *ctx)
{
	file_namer = namer;
	file_namer_ctx = ctx;
}

/* Whether v maps a file of the syscall buffer library. */
static bool preload_vma(const struct proc_vma *v)
{
	const char *name;

	if (strstr(v->name, "libmrr_preload"))
		return true;
	if (!file_namer || v->name[0] != '/')
		return false;
	name = file_namer(file_namer_ctx, v->name);
	return name && strstr(name, "libmrr_preload");
}

static void add_skip(struct digest_ctx *c, uint64_t start, uint64_t end)
{
	start &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	if (end <= start || c->nskip == MAX_SKIP)
		return;
	c->skip[c->nskip].start = start;
	c->skip[c->nskip].end = end;
	c->nskip++;
}

static bool skipped(const struct digest_ctx *c, uint64_t page)
{
	for (int i = 0; i < c->nskip; i++)
		if (page >= c->skip[i].start && page < c->skip[i].end)
			return true;
	return false;
}

/* The stack pointer and instruction pointer of tid: from its registers
 * when it is in a ptrace-stop, else from /proc/TID/syscall (a task blocked
 * in a call). Returns false when neither can be read. */
static bool task_sp(pid_t tid, uint64_t *sp, uint64_t *pc)
{
	struct user_regs_struct regs;
	struct proc_syscall s;
	int r = 0;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0) {
		*sp = regs.rsp;
		*pc = regs.rip;
		return true;
	}
	/* "running" while it enters or leaves its call: a moment */
	for (int tries = 0; tries < 20 && r == 0; tries++) {
		r = proc_task_syscall(tid, &s);
		if (r == 0)
			usleep(500);
	}
	if (r != 1)
		return false;
	*sp = s.sp;
	*pc = s.pc;
	return true;
}

/* Leaves out the stack of a task below sp, and, when the task stands in
 * the library or mrr's page, its library frames above sp. */
static void skip_stack(struct digest_ctx *c, struct tracee *tr,
		       const struct proc_vma *v, long nv, uint64_t sp,
		       uint64_t pc, bool whole, bool exact)
{
	uint64_t cut = sp, end;
	bool in_lib =
		(pc >= c->lib_lo && pc < c->lib_hi) ||
		(pc >= MRR_PAGE_ADDR && pc < MRR_PAGE_ADDR + MRR_PAGE_SIZE);

	for (long i = 0; i < nv; i++) {
		if (sp < v[i].start || sp >= v[i].end)
			continue;
		end = v[i].end;
		if (in_lib && whole) {
			/* how high the library's frames reach differs at
			 * replay, where its code takes other paths */
			cut = end;
		} else if (in_lib && c->lib_hi > c->lib_lo) {
			uint64_t stop = end - sp > LIBFRAME_SCAN
						? sp + LIBFRAME_SCAN
						: end;
			uint64_t w[512];

			for (uint64_t at = sp & ~7ull; at < stop;) {
				size_t len = stop - at < sizeof(w)
						     ? (size_t)(stop - at)
						     : sizeof(w);

				if (tracee_read_all(tr, at, w, len) < 0)
					break;
				for (size_t k = 0; k < len / 8; k++)
					if (w[k] >= c->lib_lo &&
					    w[k] < c->lib_hi)
						cut = at + 8 * k + 8 +
						      LIBFRAME_MARGIN;
				at += len;
			}
			if (cut > end)
				cut = end;
		}
		if (exact && !in_lib && cut == sp && (sp & (PAGE - 1))) {
			cut = sp & ~(PAGE - 1);
			c->part_page = cut;
			c->part_cut = sp;
		}
		add_skip(c, v[i].start, cut);
		return;
	}
}

static bool all_zero(const uint8_t *p)
{
	const uint64_t *w = (const uint64_t *)p;

	for (size_t i = 0; i < PAGE / 8; i++)
		if (w[i])
			return false;
	return true;
}

/* Hashes the non-zero pages of the run [start, start + n pages). */
static bool sbuf_header(const uint8_t *page)
{
	uint32_t w[2];

	memcpy(w, page, sizeof(w));
	return w[0] == MRR_SYSCALLBUF_MAGIC &&
	       w[1] == MRR_SYSCALLBUF_ABI_VERSION;
}

static void hash_run(struct digest_ctx *c, pid_t pid, uint64_t start,
		     uint64_t n, struct trace_xxh64_state *st,
		     struct mem_digest *out)
{
	static uint8_t buf[READ_PAGES * PAGE];

	while (n) {
		uint64_t k = n < READ_PAGES ? n : READ_PAGES;
		struct iovec local = {buf, (size_t)(k * PAGE)};
		struct iovec remote = {(void *)(uintptr_t)start,
				       (size_t)(k * PAGE)};
		ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);

		if (got <= 0)
			got = 0;
		out->bytes_read += (uint64_t)got;
		for (uint64_t i = 0; i < (uint64_t)got / PAGE; i++) {
			uint64_t addr = start + i * PAGE;

			if (addr < c->sbuf_end)
				continue;
			if (addr == c->part_page && c->part_cut > addr)
				memset(buf + i * PAGE, 0, c->part_cut - addr);
			if (sbuf_header(buf + i * PAGE)) {
				/* a syscall buffer: the replay's holds other
				 * bytes */
				c->sbuf_end = addr + MRR_SYSCALLBUF_SIZE;
				continue;
			}
			if (all_zero(buf + i * PAGE))
				continue;
			trace_xxh64_update(st, &addr, sizeof(addr));
			trace_xxh64_update(st, buf + i * PAGE, PAGE);
			out->pages++;
		}
		if ((uint64_t)got < k * PAGE) {
			/* unreadable from there: go on at the next page */
			uint64_t done = (uint64_t)got / PAGE + 1;

			start += done * PAGE;
			n -= done < n ? done : n;
			continue;
		}
		start += k * PAGE;
		n -= k;
	}
}

/* A shared anonymous mapping: shmem that only a fork's processes map
 * ("[anon_shmem:NAME]" once named with PR_SET_VMA_ANON_NAME). */
static bool shared_anon(const struct proc_vma *v)
{
	return v->shared && (strcmp(v->name, "/dev/zero (deleted)") == 0 ||
			     strncmp(v->name, "[anon_shmem:", 12) == 0);
}

static uint64_t own_start, own_end;

void mem_digest_set_own_range(uint64_t start, uint64_t end)
{
	own_start = start;
	own_end = end;
}

/* Whether the mapping holds memory the program may have written that the
 * replay has the same. */
static bool hashed_vma(const struct proc_vma *v, unsigned flags)
{
	if (!(v->prot & PROT_WRITE))
		return false;
	if (v->shared && !((flags & MEM_DIGEST_SHARED_ANON) && shared_anon(v)))
		return false;
	if (v->start >= MRR_PAGE_ADDR &&
	    v->start < MRR_PAGE_ADDR + MRR_PAGE_SIZE)
		return false;
	return !preload_vma(v);
}

static int hash_vma(int pm_fd, pid_t pid, struct digest_ctx *c,
		    const struct proc_vma *v, struct trace_xxh64_state *st,
		    struct mem_digest *out)
{
	static uint64_t ent[PM_BATCH];
	uint64_t run_start = 0, run_n = 0;

	for (uint64_t at = v->start; at < v->end;) {
		uint64_t n = (v->end - at) / PAGE;
		ssize_t got;

		if (n > PM_BATCH)
			n = PM_BATCH;
		got = pread(pm_fd, ent, n * 8, (off_t)(at / PAGE * 8));
		if (got < (ssize_t)(n * 8))
			return got < 0 ? -errno : -EIO;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t page = at + i * PAGE;
			/* shmem pages are file pages to pagemap */
			bool want = (ent[i] & (PM_PRESENT | PM_SWAPPED)) &&
				    (v->shared || !(ent[i] & PM_FILE)) &&
				    !skipped(c, page);

			if (want && run_n && run_start + run_n * PAGE == page) {
				run_n++;
				continue;
			}
			if (run_n)
				hash_run(c, pid, run_start, run_n, st, out);
			run_n = 0;
			if (want) {
				run_start = page;
				run_n = 1;
			}
		}
		at += n * PAGE;
	}
	if (run_n)
		hash_run(c, pid, run_start, run_n, st, out);
	return 0;
}

void mem_digest_note_altstack(struct mem_digest_altstacks *a, uint64_t sp,
			      uint64_t size)
{
	const uint64_t top = 1ull << 57; /* above any user address */
	uint64_t end = sp >= top || size >= top - sp ? top : sp + size;

	for (int i = 0; i < a->n; i++)
		if (a->start[i] == sp && a->end[i] == end)
			return;
	if (a->n == MEM_DIGEST_MAX_ALTSTACKS) {
		a->overflow = true;
		return;
	}
	a->start[a->n] = sp;
	a->end[a->n] = end;
	a->n++;
}

static int digest(const struct mem_digest_task *tasks, int ntasks,
		  unsigned flags, const struct mem_digest_altstacks *alt,
		  struct mem_digest *out)
{
	struct digest_ctx *c;
	struct proc_vma *v = NULL;
	struct trace_xxh64_state st;
	char path[64];
	long nv;
	int pm_fd, err = 0;

	memset(out, 0, sizeof(*out));
	if (ntasks < 1)
		return -EINVAL;
	nv = proc_read_vmas(tasks[0].tid, false, &v);
	if (nv < 0)
		return (int)nv;
	c = calloc(1, sizeof(*c));
	if (!c) {
		free(v);
		return -ENOMEM;
	}
	c->lib_lo = UINT64_MAX;
	for (long i = 0; i < nv; i++)
		if ((v[i].prot & PROT_EXEC) && preload_vma(&v[i])) {
			if (v[i].start < c->lib_lo)
				c->lib_lo = v[i].start;
			if (v[i].end > c->lib_hi)
				c->lib_hi = v[i].end;
		}
	/* first: the table of skips has room for them */
	add_skip(c, own_start, own_end);
	for (int i = 0; alt && i < alt->n; i++)
		add_skip(c, alt->start[i], alt->end[i]);
	for (int i = 0; i < ntasks; i++) {
		struct tracee tr = {tasks[i].tid, -1};
		uint64_t sp = tasks[i].sp, pc = tasks[i].pc;

		if (!sp && !task_sp(tasks[i].tid, &sp, &pc))
			continue;
		skip_stack(c, &tr, v, nv, sp, pc,
			   flags & MEM_DIGEST_LIB_WHOLE_STACK,
			   i == 0 && (flags & MEM_DIGEST_SP_EXACT));
		tracee_close_mem(&tr);
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", tasks[0].tid);
	pm_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pm_fd < 0) {
		err = -errno;
		goto out_free;
	}
	trace_xxh64_init(&st, 0);
	for (long i = 0; i < nv && !err; i++)
		if (hashed_vma(&v[i], flags))
			err = hash_vma(pm_fd, tasks[0].tid, c, &v[i], &st, out);
	close(pm_fd);
	out->hash = trace_xxh64_digest(&st);
	if (!out->hash)
		out->hash = 1;
out_free:
	free(c);
	free(v);
	return err;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int mem_digest(const struct mem_digest_task *tasks, int ntasks, unsigned flags,
	       const struct mem_digest_altstacks *alt, struct mem_digest *out)
{
	int64_t start = mono_ns();
	int err = digest(tasks, ntasks, flags, alt, out);

	out->ns = (uint64_t)(mono_ns() - start);
	return err;
}

bool mem_digest_same_vm(pid_t a, pid_t b)
{
	return syscall(SYS_kcmp, a, b, KCMP_VM, 0, 0) == 0;
}
