/* The dumper: per-task state, and how each event changes the memory map. */
#define _GNU_SOURCE
#include "core/events.h"
#include "core/tracee.h"
#include "dump/internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE	     4096ull
#define PAGE_DOWN(x) ((x) & ~(PAGE - 1))
#define PAGE_UP(x)   (((x) + PAGE - 1) & ~(PAGE - 1))

int mrr_dump_create(const mrr_trace_reader *r, unsigned flags,
		    struct mrr_dump **out)
{
	struct mrr_dump *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->r = r;
	d->flags = flags;
	d->last_seq_any = UINT64_MAX;
	*out = d;
	return 0;
}

void mrr_dump_free(struct mrr_dump *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->ntasks; i++)
		das_put(d->tasks[i].as);
	free(d->tasks);
	tid_index_free(&d->task_ix);
	tid_index_free(&d->tid_ix);
	free(d->tids);
	free(d->files);
	sb_free(&d->line);
	sb_free(&d->extra);
	free(d);
}

int32_t mrr_dump_task_pid(const struct mrr_dump *d, int32_t tid, bool *thread)
{
	const struct dtask *t = dump_task((struct mrr_dump *)d, tid, false);
	const struct dtask *leader;

	if (thread)
		*thread = false;
	if (!t)
		return 0;
	leader = t->tgid == tid
			 ? t
			 : dump_task((struct mrr_dump *)d, t->tgid, false);
	if (thread)
		*thread = t->tgid != tid || (leader && leader->threaded);
	return t->tgid;
}

int32_t mrr_dump_first_tid(const struct mrr_dump *d)
{
	return d->first_tid;
}

struct dtask *dump_task(struct mrr_dump *d, int32_t tid, bool create)
{
	struct dtask *t;
	long i = tid_index_get(&d->task_ix, tid);

	if (i >= 0)
		return &d->tasks[i];
	/* tid 0 is never indexed: look for it the slow way */
	for (size_t k = 0; !tid && k < d->ntasks; k++)
		if (d->tasks[k].tid == tid)
			return &d->tasks[k];
	if (!create)
		return NULL;
	if (d->ntasks == d->tasks_cap) {
		size_t ncap = d->tasks_cap ? d->tasks_cap * 2 : 8;

		t = realloc(d->tasks, ncap * sizeof(*t));
		if (!t)
			return NULL;
		d->tasks = t;
		d->tasks_cap = ncap;
	}
	if (tid_index_put(&d->task_ix, tid, (uint32_t)d->ntasks))
		return NULL;
	t = &d->tasks[d->ntasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tid;
	if (!d->first_tid)
		d->first_tid = tid;
	return t;
}

uint64_t mrr_dump_backtrace_owner(const struct mrr_dump *d,
				  const struct mrr_event *ev)
{
	const struct dtask *t = dump_task((struct mrr_dump *)d, ev->tid, false);

	return t && t->has_last ? t->last_seq : UINT64_MAX;
}

/* ---- exec: the kernel's own mappings ---- */

struct auxv_facts {
	uint64_t phdr, phnum, base, entry;
};

/* The exec event's write of the initial stack, from sp up (the vDSO's image
 * may come before it), or NULL. */
static const struct mrr_mem_write *stack_write(const struct mrr_event *ev,
					       uint64_t sp)
{
	uint32_t i;

	for (i = 0; i < ev->nwrites; i++)
		if (ev->writes[i].addr == sp)
			return &ev->writes[i];
	return NULL;
}

/* Walks the initial stack (argc, argv, envp, auxv) held by the exec event's
 * stack write. */
static bool read_auxv(const struct mrr_event *ev, uint64_t sp,
		      struct auxv_facts *a)
{
	const struct mrr_mem_write *w = stack_write(ev, sp);
	uint64_t argc, word[2], off;
	const uint8_t *p;

	memset(a, 0, sizeof(*a));
	if (!w || !w->data) /* a streamed write is no stack */
		return false;
	p = w->data;
	if (w->len < 8)
		return false;
	memcpy(&argc, p, 8);
	if (argc > w->len / 8)
		return false;
	off = 8 + (argc + 1) * 8;
	for (;;) { /* environment, up to its NULL */
		if (off + 8 > w->len)
			return false;
		memcpy(word, p + off, 8);
		off += 8;
		if (!word[0])
			break;
	}
	for (; off + 16 <= w->len; off += 16) {
		memcpy(word, p + off, 16);
		switch (word[0]) {
		case AT_NULL:
			return true;
		case AT_PHDR:
			a->phdr = word[1];
			break;
		case AT_PHNUM:
			a->phnum = word[1];
			break;
		case AT_BASE:
			a->base = word[1];
			break;
		case AT_ENTRY:
			a->entry = word[1];
			break;
		}
	}
	return false;
}

static uint32_t elf_prot(uint32_t pf)
{
	return (pf & PF_R ? PROT_READ : 0) | (pf & PF_W ? PROT_WRITE : 0) |
	       (pf & PF_X ? PROT_EXEC : 0);
}

/* Maps the PT_LOAD segments of stored ELF file name the way the kernel or
 * ld.so does. For the executable, bias comes from AT_PHDR (phdr != 0);
 * for the interpreter, it is AT_BASE. */
static void map_elf(struct mrr_dump *d, struct das *as, const char *name,
		    const char *label, uint64_t phdr, uint64_t bias)
{
	char path[PATH_MAX];
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	int fd, i, n;
	bool have_bias = !phdr;

	if (!d->r || !name[0] ||
	    mrr_trace_file_path(d->r, name, path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		goto out_close_fd;
	n = eh.e_phnum < 64 ? eh.e_phnum : 64;
	if (pread(fd, ph, n * sizeof(*ph), (off_t)eh.e_phoff) !=
	    (ssize_t)(n * sizeof(*ph)))
		goto out_close_fd;
	/* bias: where the program headers are versus where they were linked */
	for (i = 0; !have_bias && i < n; i++) {
		if (ph[i].p_type == PT_PHDR) {
			bias = phdr - ph[i].p_vaddr;
			have_bias = true;
		}
	}
	for (i = 0; !have_bias && i < n; i++) {
		if (ph[i].p_type == PT_LOAD && eh.e_phoff >= ph[i].p_offset &&
		    eh.e_phoff < ph[i].p_offset + ph[i].p_filesz) {
			bias = phdr -
			       (ph[i].p_vaddr + (eh.e_phoff - ph[i].p_offset));
			have_bias = true;
		}
	}
	if (!have_bias)
		goto out_close_fd;
	for (i = 0; i < n; i++) {
		struct dmap m = {0};
		uint64_t va, file_end, mem_end;

		if (ph[i].p_type != PT_LOAD)
			continue;
		va = bias + ph[i].p_vaddr;
		file_end = PAGE_UP(va + ph[i].p_filesz);
		mem_end = PAGE_UP(va + ph[i].p_memsz);
		m.start = PAGE_DOWN(va);
		m.end = file_end;
		m.offset = PAGE_DOWN(ph[i].p_offset);
		m.prot = elf_prot(ph[i].p_flags);
		m.flags = m.prot & PROT_WRITE ? DM_WRITTEN : 0;
		snprintf(m.file, sizeof(m.file), "%s", name);
		snprintf(m.label, sizeof(m.label), "%s", label);
		m.label_base = bias;
		if (das_map(as, &m))
			break;
		if (mem_end > file_end) { /* .bss beyond the file's pages */
			m.start = file_end;
			m.end = mem_end;
			m.offset = 0;
			m.file[0] = 0;
			m.flags = DM_WRITTEN;
			if (das_map(as, &m))
				break;
		}
	}
out_close_fd:
	close(fd);
}

void dump_exec_maps(struct mrr_dump *d, struct dtask *t,
		    const struct mrr_event *ev)
{
	struct mrr_exec_extra x;
	struct auxv_facts a;
	struct dmap m = {0};
	struct das *as;
	uint64_t sp;

	das_put(t->as);
	t->as = as = das_new();
	if (!as || ev->extra_len < sizeof(x))
		return;
	memcpy(&x, ev->extra, sizeof(x));
	x.exe_file[sizeof(x.exe_file) - 1] = 0;
	x.interp_file[sizeof(x.interp_file) - 1] = 0;
	sp = x.regs[19]; /* user_regs_struct.rsp */
	as->sp0 = sp;
	if (stack_write(ev, sp))
		as->stack_end = sp + stack_write(ev, sp)->len;

	m.start = MRR_PAGE_ADDR;
	m.end = MRR_PAGE_ADDR + MRR_PAGE_SIZE;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = DM_WRITTEN;
	snprintf(m.label, sizeof(m.label), "mrr");
	m.label_base = MRR_PAGE_ADDR;
	if (das_map(as, &m))
		return;
	if (as->stack_end) {
		m.start = PAGE_DOWN(sp);
		m.end = PAGE_UP(as->stack_end);
		m.prot = PROT_READ | PROT_WRITE;
		snprintf(m.label, sizeof(m.label), "stack");
		m.label_base = sp;
		if (das_map(as, &m))
			return;
	}
	if (!read_auxv(ev, sp, &a))
		return;
	if (a.phdr)
		map_elf(d, as, x.exe_file, "exe", a.phdr, 0);
	if (a.base && x.interp_file[0])
		map_elf(d, as, x.interp_file, "interp", 0, a.base);
}

/* ---- syscalls that change the map ---- */

static bool failed(int64_t result)
{
	return result < 0 && result > -4096;
}

static void apply_mmap(struct mrr_dump *d, struct das *as,
		       const struct mrr_event *ev)
{
	struct mrr_mmap_extra fx;
	const struct dmap *old;
	struct dmap m = {0};
	uint64_t addr = (uint64_t)ev->result;

	m.start = addr;
	m.end = addr + PAGE_UP(ev->args[1]);
	m.prot = (uint32_t)ev->args[2];
	m.flags = (ev->args[3] & MAP_SHARED) ? DM_SHARED : 0;
	if (m.prot & PROT_WRITE)
		m.flags |= DM_WRITTEN;
	if (ev->extra_len >= sizeof(fx)) {
		memcpy(&fx, ev->extra, sizeof(fx));
		fx.file[sizeof(fx.file) - 1] = 0;
		snprintf(m.file, sizeof(m.file), "%s", fx.file);
		m.offset = ev->args[5];
	}
	old = das_find(as, addr);
	if (old && old->label[0] && strcmp(old->label, "stack")) {
		memcpy(m.label, old->label, sizeof(m.label));
		m.label_base = old->label_base;
	} else {
		snprintf(m.label, sizeof(m.label), "map%u", ++d->next_map);
		m.label_base = addr;
	}
	das_map(as, &m);
}

static void apply_brk(struct das *as, uint64_t result)
{
	struct dmap m = {0};

	if (!as->brk_start) {
		as->brk_start = as->brk_end = result;
		return;
	}
	if (result < as->brk_start)
		return;
	if (PAGE_UP(result) < PAGE_UP(as->brk_end))
		das_unmap(as, PAGE_UP(result), PAGE_UP(as->brk_end));
	else if (PAGE_UP(result) > PAGE_UP(as->brk_start)) {
		m.start = PAGE_UP(as->brk_start);
		m.end = PAGE_UP(result);
		m.prot = PROT_READ | PROT_WRITE;
		m.flags = DM_WRITTEN;
		snprintf(m.label, sizeof(m.label), "heap");
		m.label_base = as->brk_start;
		das_map(as, &m);
	}
	as->brk_end = result;
}

/* Gives the new task child of t the address space clone/fork says. */
/* A new task: a thread of parent's process (thread), or a process that
 * shares parent's address space (share) or has a copy of it. */
static void apply_fork(struct mrr_dump *d, int32_t parent, int32_t child,
		       bool share, bool thread)
{
	struct dtask *t = dump_task(d, parent, false), *c;
	struct das *as = NULL;

	c = dump_task(d, child, true);
	if (!c)
		return;
	t = dump_task(d, parent, false); /* the array may have moved */
	c->tgid = child;
	if (t && thread) {
		struct dtask *leader = dump_task(d, t->tgid, false);

		c->tgid = t->tgid;
		if (leader)
			leader->threaded = true;
	}
	if (!t || !t->as)
		return;
	if (share) {
		as = t->as;
		as->refs++;
	} else {
		as = das_copy(t->as);
	}
	das_put(c->as);
	c->as = as;
}

/* The clone flags of a clone or clone3 event that created a task. Traces
 * from before mrr_clone_extra have clone3's only in the program's memory:
 * glibc makes threads with clone3 and processes with clone, so a clone3
 * without them counts as a thread. */
static uint64_t clone_flags(const struct mrr_event *ev)
{
	struct mrr_clone_extra x;

	if (ev->extra_len == sizeof(x)) {
		memcpy(&x, ev->extra, sizeof(x));
		return x.flags;
	}
	if (ev->nr == SYS_clone)
		return ev->args[0];
	return CLONE_VM | CLONE_THREAD;
}

static void changed(struct mrr_dump *d, uint64_t lo, uint64_t hi)
{
	if (d->ndiff < 2 && lo <= hi) {
		d->diff[d->ndiff][0] = lo;
		d->diff[d->ndiff][1] = hi;
		d->ndiff++;
	}
}

/* Where a map syscall changes the map, for -m's diff (dump_maps_diff). */
static void note_changed(struct mrr_dump *d, const struct das *as,
			 const struct mrr_event *ev)
{
	uint64_t a = ev->args[0], res = (uint64_t)ev->result;

	switch (ev->nr) {
	case SYS_mmap:
		changed(d, res, res + PAGE_UP(ev->args[1]));
		break;
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		changed(d, a, a + PAGE_UP(ev->args[1]));
		break;
	case SYS_mremap:
		/* sorted: the diff walks its ranges in order */
		if (res < a) {
			changed(d, res, res + PAGE_UP(ev->args[2]));
			changed(d, a, a + PAGE_UP(ev->args[1]));
		} else {
			changed(d, a, a + PAGE_UP(ev->args[1]));
			changed(d, res, res + PAGE_UP(ev->args[2]));
		}
		if (d->ndiff == 2 && d->diff[1][0] <= d->diff[0][1]) {
			/* overlapping: one range */
			if (d->diff[1][1] > d->diff[0][1])
				d->diff[0][1] = d->diff[1][1];
			d->ndiff = 1;
		}
		break;
	case SYS_brk:
		if (as->brk_start)
			changed(d, PAGE_UP(as->brk_start),
				PAGE_UP(as->brk_end) > PAGE_UP(res)
					? PAGE_UP(as->brk_end)
					: PAGE_UP(res));
		break;
	}
}

static bool is_map_syscall(int64_t nr)
{
	switch (nr) {
	case SYS_mmap:
	case SYS_munmap:
	case SYS_mprotect:
	case SYS_pkey_mprotect:
	case SYS_mremap:
	case SYS_brk:
		return true;
	}
	return false;
}

void dump_apply_maps(struct mrr_dump *d, const struct mrr_event *ev,
		     struct das **before, struct das **after)
{
	struct dtask *t = dump_task(d, ev->tid, true);
	struct das *as;
	uint32_t i;

	if (before)
		*before = NULL;
	if (after)
		*after = NULL;
	d->ndiff = 0;
	if (!t)
		return;
	if (ev->kind == MRR_EV_EXEC) {
		t->threaded = false; /* the kernel ended its other threads */
		dump_exec_maps(d, t, ev);
		if (t->tgid != t->tid) {
			/* a thread exec'd: it goes on as the leader's tid */
			struct dtask *leader = dump_task(d, t->tgid, true);

			t = dump_task(d, ev->tid, false);
			if (leader && t && t->as) {
				das_put(leader->as);
				leader->as = t->as;
				t->as->refs++;
				leader->threaded = false;
			}
		}
		if (after && t && t->as)
			*after = das_copy(t->as);
		return;
	}
	if (!t->as)
		t->as = das_new();
	as = t->as;
	if (!as)
		return;
	for (i = 0; i < ev->nwrites; i++)
		das_mark_written(as, ev->writes[i].addr,
				 ev->writes[i].addr + ev->writes[i].len);
	if (ev->kind == MRR_EV_BUFFER) {
		dump_buffer_apply_maps(d, as, ev);
		return;
	}
	if (ev->kind != MRR_EV_SYSCALL || failed(ev->result) ||
	    (ev->flags & MRR_EVF_SKIPPED))
		return;
	if (is_map_syscall(ev->nr) && before)
		*before = das_copy(as);
	note_changed(d, as, ev);
	switch (ev->nr) {
	case SYS_mmap:
		apply_mmap(d, as, ev);
		break;
	case SYS_munmap:
		das_unmap(as, ev->args[0], ev->args[0] + PAGE_UP(ev->args[1]));
		break;
	case SYS_mprotect:
	case SYS_pkey_mprotect:
		das_protect(as, ev->args[0], ev->args[0] + PAGE_UP(ev->args[1]),
			    (uint32_t)ev->args[2]);
		break;
	case SYS_mremap:
		das_move(as, ev->args[0], PAGE_UP(ev->args[1]),
			 (uint64_t)ev->result, PAGE_UP(ev->args[2]));
		break;
	case SYS_brk:
		apply_brk(as, (uint64_t)ev->result);
		break;
	case SYS_clone:
	case SYS_clone3:
		if (ev->result > 0) {
			uint64_t fl = clone_flags(ev);

			apply_fork(d, ev->tid, (int32_t)ev->result,
				   fl & CLONE_VM, fl & CLONE_THREAD);
		}
		break;
	case SYS_fork:
	case SYS_vfork:
		if (ev->result > 0)
			apply_fork(d, ev->tid, (int32_t)ev->result,
				   ev->nr == SYS_vfork, false);
		break;
	}
	if (before && *before && after)
		*after = das_copy(as);
}

void dump_map_line(struct mrr_dump *d, const struct das *as,
		   const struct dmap *m, struct sbuf *b)
{
	char perms[5];

	dmap_perms(m, perms);
	if ((d->flags & MRR_DUMP_STABLE) && !strcmp(m->label, "stack")) {
		/* its bounds move with the size of argv and the environment */
		sb_puts(b, "[stack]");
	} else if (d->flags & MRR_DUMP_STABLE) {
		/* ends are often the start of something else: give sizes */
		dump_addr(d, as, m->start, ADDR_PLAIN, b);
		sb_printf(b, " size 0x%llx",
			  (unsigned long long)(m->end - m->start));
	} else {
		sb_printf(b, "%012llx-%012llx", (unsigned long long)m->start,
			  (unsigned long long)m->end);
	}
	sb_printf(b, " %s %08llx %s", perms, (unsigned long long)m->offset,
		  m->label[0] ? m->label : "-");
	if (m->file[0]) {
		sb_puts(b, " ");
		dump_file(d, m->file, b);
	}
}

int mrr_dump_print_maps(struct mrr_dump *d, int32_t tid, FILE *out)
{
	struct dtask *t = dump_task(d, tid, false);
	struct sbuf *b = &d->line;
	const struct dmap *m;
	struct das_iter it;
	size_t i;
	bool json = d->flags & MRR_DUMP_JSON;

	if (!t || !t->as)
		return -ESRCH;
	sb_reset(b);
	if (json)
		sb_printf(b, "{\"kind\":\"maps\",\"tid\":%d,\"maps\":[",
			  dump_tid(d, tid));
	for (m = das_iter_first(t->as, 0, &it), i = 0; m;
	     m = das_iter_next(&it), i++) {

		if (json) {
			sb_puts(b, i ? "," : "");
			dump_json_map(d, t->as, m, b);
			continue;
		}
		dump_map_line(d, t->as, m, b);
		sb_puts(b, "\n");
	}
	if (json)
		sb_puts(b, "]}\n");
	fputs(b->s ? b->s : "", out);
	return 0;
}

void mrr_dump_event(struct mrr_dump *d, const struct mrr_event *ev, FILE *out)
{
	struct das *before = NULL, *after = NULL;
	struct mrr_exec_extra x;
	struct mrr_mmap_extra mf;
	struct dtask *t;
	struct sbuf scratch = {0};

	/* Names are handed out in trace order, printed or not, so that a
	 * range of events prints the same names as the whole dump. */
	dump_tid(d, ev->tid);
	if (ev->kind == MRR_EV_SYSCALL && ev->result > 0 &&
	    dump_result_is_tid(ev->nr))
		dump_tid(d, (int32_t)ev->result);
	if (ev->kind == MRR_EV_EXEC && ev->extra_len >= sizeof(x)) {
		memcpy(&x, ev->extra, sizeof(x));
		x.exe_file[sizeof(x.exe_file) - 1] = 0;
		x.interp_file[sizeof(x.interp_file) - 1] = 0;
		dump_file(d, x.exe_file, &scratch);
		if (x.interp_file[0])
			dump_file(d, x.interp_file, &scratch);
	}
	if (dump_mmap_file(ev, &mf))
		dump_file(d, mf.file, &scratch);
	sb_free(&scratch);

	if (ev->kind == MRR_EV_BACKTRACE) {
		if (out) {
			if (d->flags & MRR_DUMP_JSON)
				dump_json(d, ev, NULL, NULL, out);
			else
				dump_text(d, ev, NULL, NULL, out);
		}
		return;
	}
	dump_apply_maps(d, ev, out ? &before : NULL,
			out && (d->flags & MRR_DUMP_MAPS) ? &after : NULL);
	if (out) {
		if (d->flags & MRR_DUMP_JSON)
			dump_json(d, ev, before, after, out);
		else
			dump_text(d, ev, before, after, out);
	}
	das_put(before);
	das_put(after);
	t = dump_task(d, ev->tid, true);
	if (t && ev->kind == MRR_EV_EXIT) {
		/* after printing: the exit's ip is still in the old map */
		das_put(t->as);
		t->as = NULL;
	}
	if (t) {
		t->last_seq = ev->seq;
		t->has_last = true;
	}
	d->last_seq_any = out ? ev->seq : UINT64_MAX;
}

/* ---- writes too big to hold ---- */

#define STREAM_PIECE (1u << 20)

void dump_streamed_hex(struct mrr_dump *d, uint32_t i,
		       const struct mrr_mem_write *w, bool stable, FILE *out)
{
	mrr_trace_reader *r = (mrr_trace_reader *)d->r;
	uint8_t *buf = malloc(STREAM_PIECE);
	uint64_t off;

	for (off = 0; buf && r && off < w->len; off += STREAM_PIECE) {
		size_t n = w->len - off < STREAM_PIECE ? (size_t)(w->len - off)
						       : STREAM_PIECE;

		if (mrr_trace_read_data(r, i, buf, n)) {
			fprintf(out, "      (unreadable: %s)\n",
				mrr_trace_error_message(r));
			break;
		}
		mrr_dump_hex(out, "      ", (stable ? 0 : w->addr) + off, buf,
			     n);
	}
	free(buf);
}

void dump_streamed_json_hex(struct mrr_dump *d, uint32_t i,
			    const struct mrr_mem_write *w, struct sbuf *b,
			    FILE *out)
{
	mrr_trace_reader *r = (mrr_trace_reader *)d->r;
	char *hex = malloc(2 * STREAM_PIECE);
	uint8_t *buf = (uint8_t *)hex; /* read into the first half */
	uint64_t off;

	fputs(b->s ? b->s : "", out);
	sb_reset(b);
	for (off = 0; buf && r && off < w->len; off += STREAM_PIECE) {
		size_t n = w->len - off < STREAM_PIECE ? (size_t)(w->len - off)
						       : STREAM_PIECE;

		if (mrr_trace_read_data(r, i, buf, n))
			break;
		/* in place, from the end: two hex digits per byte */
		for (size_t k = n; k-- > 0;) {
			uint8_t v = buf[k];

			hex[2 * k] = "0123456789abcdef"[v >> 4];
			hex[2 * k + 1] = "0123456789abcdef"[v & 15];
		}
		fwrite(hex, 1, 2 * n, out);
	}
	free(hex);
}
