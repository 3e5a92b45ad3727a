/* Private to src/dump: the dumper's state and the helpers its files share. */
#ifndef MRR_DUMP_INTERNAL_H
#define MRR_DUMP_INTERNAL_H

#include "core/events.h"
#include "core/tid_index.h"
#include "dump/dump.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- growable string ---- */

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom; /* an allocation failed: s holds what fit */
};

void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_put(struct sbuf *b, const char *s, size_t len);
void sb_puts(struct sbuf *b, const char *s);
/* Appends s as a JSON string, quotes included. */
void sb_json_str(struct sbuf *b, const char *s, size_t len);
/* Appends s as a C string literal, quotes included, at most max bytes of s
 * (then "..." after the closing quote). */
void sb_c_str(struct sbuf *b, const char *s, size_t len, size_t max);
void sb_reset(struct sbuf *b);
void sb_free(struct sbuf *b);

/* ---- address spaces (maps.c) ---- */

#define DM_SHARED  0x1u /* MAP_SHARED */
#define DM_WRITTEN 0x2u /* was writable or written: may differ from file */

/* One mapping. label/label_base name addresses inside it for --stable:
 * "map3+0x10" is label_base + 0x10 (a mapping placed over part of another
 * keeps the label of the one it replaced). */
struct dmap {
	uint64_t start, end;
	uint64_t offset;		/* file offset of start */
	uint32_t prot;			/* PROT_* */
	uint32_t flags;			/* DM_* */
	char file[MRR_STORED_NAME_MAX]; /* stored name, "" for anonymous */
	char label[24];
	uint64_t label_base;
};

/* One address space, shared by the tasks that share it (threads). Its
 * mappings (sorted by start, not overlapping) live in a persistent tree
 * (maps.c): a copy is O(1) and shares them. */
struct dnode;
struct das {
	unsigned refs;
	struct dnode *root;
	size_t n;		     /* mappings */
	uint64_t brk_start, brk_end; /* 0 until the first brk */
	uint64_t stack_end, sp0;     /* from the exec event */
};

struct das *das_new(void);
struct das *das_copy(const struct das *as);
void das_put(struct das *as);
/* Replaces whatever lies in [m->start, m->end) by m. Returns 0 or -ENOMEM. */
int das_map(struct das *as, const struct dmap *m);
/* Removes [start, end). Returns 0 or -ENOMEM. */
int das_unmap(struct das *as, uint64_t start, uint64_t end);
/* Sets the protection of what is mapped in [start, end). */
int das_protect(struct das *as, uint64_t start, uint64_t end, uint32_t prot);
/* Moves [old, old + oldlen) to new (mremap), growing or shrinking it to
 * newlen. */
int das_move(struct das *as, uint64_t old, uint64_t oldlen, uint64_t new_addr,
	     uint64_t newlen);
/* The mapping holding addr, or NULL. */
const struct dmap *das_find(const struct das *as, uint64_t addr);
/* Marks the mappings that [start, end) touches as written. */
void das_mark_written(struct das *as, uint64_t start, uint64_t end);

/* In-order walk: das_iter_first() returns the first mapping that ends after
 * from (NULL: none), das_iter_next() the one after the last returned. The
 * walk is valid while as is not changed. */
#define DAS_ITER_DEPTH 128
struct das_iter {
	const void *stack[DAS_ITER_DEPTH];
	int depth;
};
const struct dmap *das_iter_first(const struct das *as, uint64_t from,
				  struct das_iter *it);
const struct dmap *das_iter_next(struct das_iter *it);
/* "r-xp" */
void dmap_perms(const struct dmap *m, char out[5]);

/* ---- the dumper ---- */

struct dtask {
	int32_t tid;
	int32_t tgid;  /* its process: the leader's tid */
	bool threaded; /* a leader that created a thread (CLONE_THREAD) */
	struct das *as;
	uint64_t last_seq; /* its latest event */
	bool has_last;
};

struct tidname {
	int32_t tid;
	int32_t id;
};

struct mrr_dump {
	const mrr_trace_reader *r;
	unsigned flags;
	struct dtask *tasks;
	size_t ntasks, tasks_cap;
	struct tid_index task_ix;
	struct tidname *tids; /* --stable renumbering */
	size_t ntids, tids_cap;
	struct tid_index tid_ix;
	char (*files)[MRR_STORED_NAME_MAX]; /* --stable: file#N is files[N-1] */
	size_t nfiles, files_cap;
	unsigned next_map; /* --stable: labels map1, map2... */
	/* the address ranges the current event changed, [lo, hi) each; none:
	 * anything may have */
	uint64_t diff[2][2];
	int ndiff;
	int32_t first_tid;
	uint64_t last_seq_any;
	struct sbuf line, extra;
};

struct dtask *dump_task(struct mrr_dump *d, int32_t tid, bool create);
/* Applies ev's effect on the memory map of its task. For an event that
 * changes the map, sets *before to a copy of the address space before it
 * and *after to one after it (callers das_put() them); either pointer may
 * be NULL to skip that copy. */
void dump_apply_maps(struct mrr_dump *d, const struct mrr_event *ev,
		     struct das **before, struct das **after);
/* Maps the kernel made at exec, from the stored ELF images and the initial
 * stack. */
void dump_exec_maps(struct mrr_dump *d, struct dtask *t,
		    const struct mrr_event *ev);

/* -m: calls emit for each mapping of before that is not in after ('-'),
 * then for each of after not in before ('+'), looking only near the
 * ranges the event changed (d->diff). */
void dump_maps_diff(const struct mrr_dump *d, const struct das *before,
		    const struct das *after,
		    void (*emit)(const struct das *as, const struct dmap *m,
				 char sign, void *arg),
		    void *arg);

/* One mapping as -m and --maps-at print it (no newline). */
void dump_map_line(struct mrr_dump *d, const struct das *as,
		   const struct dmap *m, struct sbuf *b);

/* One mapping as a JSON object (json.c). */
void dump_json_map(struct mrr_dump *d, const struct das *as,
		   const struct dmap *m, struct sbuf *b);

/* ---- names (names.c) ---- */

enum addr_kind {
	ADDR_PTR,  /* 0 prints as NULL */
	ADDR_HEX,  /* may be an address or a number: masked only if mapped */
	ADDR_PLAIN /* an address, 0 prints as 0x0 */
};
/* Appends an address; with --stable a region token or "0xADDR". Returns
 * true when the printed form is not the raw value. */
bool dump_addr(struct mrr_dump *d, const struct das *as, uint64_t v,
	       enum addr_kind k, struct sbuf *b);
/* A recorded tid or pid as printed (renumbered with --stable). */
int32_t dump_tid(struct mrr_dump *d, int32_t tid);
/* A stored file name as printed ("file#2" with --stable). */
void dump_file(struct mrr_dump *d, const char *name, struct sbuf *b);
/* Reads exactly len bytes at addr if they lie in a mapping of a stored file
 * that the program has never written. Returns len, or -1. */
long dump_read_bytes(struct mrr_dump *d, const struct das *as, uint64_t addr,
		     char *out, size_t len);
/* Reads the NUL-terminated string at addr if it lies in a mapping of a
 * stored file that the program has never written. Returns its length (the
 * bytes at out, at most outlen - 1, NUL-terminated) and sets *cut when it was
 * longer, or returns -1. */
long dump_read_string(struct mrr_dump *d, const struct das *as, uint64_t addr,
		      char *out, size_t outlen, bool *cut);

/* ---- events (event.c, json.c) ---- */

/* -p for a write the reader streams (data NULL, MRR_READER_STREAM): its
 * bytes read and printed a piece at a time (dump.c). */
void dump_streamed_hex(struct mrr_dump *d, uint32_t i,
		       const struct mrr_mem_write *w, bool stable, FILE *out);
/* The line so far (b) goes to out first: the hex is written straight to
 * out, never held whole. */
void dump_streamed_json_hex(struct mrr_dump *d, uint32_t i,
			    const struct mrr_mem_write *w, struct sbuf *b,
			    FILE *out);

void dump_text(struct mrr_dump *d, const struct mrr_event *ev,
	       struct das *before, struct das *after, FILE *out);
void dump_json(struct mrr_dump *d, const struct mrr_event *ev,
	       struct das *before, struct das *after, FILE *out);

/* The frames of a backtrace event, one per line, each after indent. */
void dump_backtrace_lines(struct mrr_dump *d, const struct das *as,
			  const struct mrr_event *ev, const char *indent,
			  struct sbuf *b);
/* Applies the successful buffered mprotects of flush ev to as, in order
 * (the records are checked; a malformed flush applies nothing more). */
void dump_buffer_apply_maps(struct mrr_dump *d, struct das *as,
			    const struct mrr_event *ev);
/* -b: the records of a syscall buffer flush (buffer.c). */
void dump_buffer_records(struct mrr_dump *d, const struct mrr_event *ev,
			 FILE *out);
/* -b --json: the flush's records as a "calls" array (buffer.c). */
void dump_buffer_json(struct mrr_dump *d, const struct mrr_event *ev,
		      struct sbuf *b);

/* Decoded pieces both printers share (event.c). */
struct sc_arg {
	char text[160]; /* as printed */
	bool masked;	/* --stable replaced the raw value */
	bool is_string; /* text is a quoted string read from a file */
};
void dump_syscall_args(struct mrr_dump *d, const struct das *as,
		       const struct mrr_event *ev, struct sc_arg args[6],
		       int *nargs);
/* Result: "= 3", "= -1 EINVAL", "= map3" (without "= "). */
void dump_syscall_result(struct mrr_dump *d, const struct das *as,
			 const struct mrr_event *ev, struct sbuf *b,
			 bool *masked);
bool dump_result_is_error(const struct mrr_event *ev);

/* The madvise payload of ev, checked: returns true and fills *x when ev
 * carries one whose length matches its counts; *bad is set when it has
 * extra bytes that are not a valid payload. Ranges are read with
 * dump_madv_range() and dump_madv_locked() (the extra may be unaligned). */
bool dump_madv(const struct mrr_event *ev, struct mrr_madvise_extra *x,
	       bool *bad);
void dump_madv_range(const struct mrr_event *ev, uint32_t i,
		     struct mrr_drop_range *out);
void dump_madv_locked(const struct mrr_event *ev,
		      const struct mrr_madvise_extra *x, uint32_t i,
		      struct mrr_locked_range *out);
/* Whether ev is a write-family call with a file-write payload, or an
 * interrupted call with a pending-signals payload. */
bool dump_file_write(const struct mrr_event *ev,
		     struct mrr_file_write_extra *out);
bool dump_interrupted(const struct mrr_event *ev, uint64_t *pending);
bool dump_mmap_file(const struct mrr_event *ev, struct mrr_mmap_extra *out);
/* Result kinds that --stable masks. */
/* For a clone or clone3 event that created a thread: the recorded process
 * the thread belongs to (its tgid); 0 for other events. */
int32_t dump_new_thread_of(const struct mrr_dump *d,
			   const struct mrr_event *ev);
bool dump_result_is_tid(int64_t nr);
bool dump_result_is_addr(int64_t nr);
bool dump_result_is_time(int64_t nr);
/* Whether argument i of syscall nr is a pid or tid. */
bool dump_arg_is_pid(const struct mrr_event *ev, int i);

const char *dump_kind_name(uint32_t kind);
/* Why a thread let another run (MRR_EV_SCHED result). */
const char *dump_sched_reason(int64_t reason);
/* The table's name of nr, or the name of one of mrr's own calls, or NULL. */
const char *dump_syscall_name(int64_t nr);
const char *dump_fill_name(uint32_t fill);
const char *dump_si_code_name(int sig, int code);
const char *dump_sig_how_name(uint32_t how);

#endif
