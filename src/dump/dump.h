/* Printing trace events for people and tools (mrr dump).
 *
 * A dumper follows a trace event by event: it keeps the memory map of every
 * recorded address space (from exec, mmap, munmap, mremap, brk and mprotect
 * events), which lets it name addresses, read path strings out of stored
 * files and, with --stable, replace values that vary between runs by tokens.
 * Feed it every event of the trace in order, also those that are not printed,
 * so that this state stays right. Not thread-safe: one dumper per thread.
 */
#ifndef MRR_DUMP_DUMP_H
#define MRR_DUMP_DUMP_H

#include "mrr/trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What mrr_dump_event() prints (flags of mrr_dump_create()). */
#define MRR_DUMP_STABLE 0x01u /* mask tids, addresses, times, file names */
#define MRR_DUMP_MAPS	0x02u /* -m: mapping changes under each event */
#define MRR_DUMP_BUFFER 0x04u /* -b: syscall buffer flush details */
#define MRR_DUMP_MEM	0x08u /* -p: memory writes as hex */
#define MRR_DUMP_JSON	0x10u /* one JSON object per event */

struct mrr_dump;

/* Creates a dumper. r (may be NULL) gives access to stored files: path
 * strings and ELF images of executables are read from them. r must outlive
 * the dumper. Returns 0 and *out, or -ENOMEM. */
__attribute__((warn_unused_result)) int
mrr_dump_create(const mrr_trace_reader *r, unsigned flags,
		struct mrr_dump **out);

/* Frees d; accepts NULL. */
void mrr_dump_free(struct mrr_dump *d);

/* Takes ev into account and, when out is non-NULL, prints it to out: one
 * line (text) or one JSON object per line (MRR_DUMP_JSON), followed by the
 * detail lines the flags ask for. A backtrace event prints as indented frame
 * lines under the event it belongs to (text) or as one object (JSON).
 * Never fails: malformed payloads print as such ("bad extra"). */
void mrr_dump_event(struct mrr_dump *d, const struct mrr_event *ev, FILE *out);

/* The event a backtrace event ev belongs to: the previous event of the same
 * task, or UINT64_MAX when there is none. Valid before ev is passed to
 * mrr_dump_event(). */
uint64_t mrr_dump_backtrace_owner(const struct mrr_dump *d,
				  const struct mrr_event *ev);

/* Prints the memory map of task tid's address space as it is after the
 * events fed so far, one mapping per line like /proc/PID/maps (JSON: one
 * object). Returns 0, or -ESRCH when tid has no known address space. */
__attribute__((warn_unused_result)) int
mrr_dump_print_maps(struct mrr_dump *d, int32_t tid, FILE *out);

/* tid as the dumper prints it (renumbered with MRR_DUMP_STABLE). */
int32_t mrr_dump_tid_name(struct mrr_dump *d, int32_t tid);

/* The recorded process (thread group id) of task tid, as the events fed so
 * far tell (clone flags, exec), or 0 when tid is unknown. *thread, when
 * thread is not NULL, says whether tid is one of several threads of that
 * process (a thread other than the leader, or a leader that created
 * threads since its exec). */
int32_t mrr_dump_task_pid(const struct mrr_dump *d, int32_t tid, bool *thread);

/* The first task seen (the recorded program's first process), or 0. */
int32_t mrr_dump_first_tid(const struct mrr_dump *d);

/* Writes the symbolic form of a wait status into buf: "exited 3",
 * "killed by SIGSEGV", "killed by SIGABRT (core dumped)". Returns buf. */
char *mrr_dump_wait_status(int64_t status, char *buf, size_t buflen);

/* Writes s (len bytes) to out as the inside of a JSON string: quotes,
 * backslashes and control bytes escaped, bytes that are not valid UTF-8 as
 * \u00XX (one per byte). */
void mrr_dump_json_string(FILE *out, const char *s, size_t len);

/* Prints len bytes at data, as recorded at address addr, like hexdump -C:
 * 16 bytes a line, address, hex, printable characters; a run of lines equal
 * to the line before them prints as one "*" line. indent is prefixed to
 * every line. */
void mrr_dump_hex(FILE *out, const char *indent, uint64_t addr,
		  const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif
