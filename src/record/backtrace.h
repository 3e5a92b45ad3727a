/* Call stacks of stopped recorded tasks, for `mrr record --backtrace`
 * (stored as MRR_EV_BACKTRACE events, printed by mrr dump). */
#ifndef MRR_RECORD_BACKTRACE_H
#define MRR_RECORD_BACKTRACE_H

#include <stddef.h>
#include <sys/types.h>

/* Most frames mrr_backtrace() writes. */
#define MRR_BACKTRACE_MAX_FRAMES 32

/* Unwinds task tid, which must be in a ptrace-stop of the caller, with
 * libunwind-ptrace, and writes its frames, innermost first, into buf, one a
 * line: "0xADDR SYMBOL+0xOFF (FILE)\n". SYMBOL+0xOFF is the function holding
 * ADDR when the symbol's range in .symtab or .dynsym covers ADDR; else
 * BASENAME+0xOFF, the offset of ADDR in the mapped file; else "??" (no
 * file: then "+0xOFF" is left out). FILE is the mapped file holding ADDR
 * according to /proc/TID/maps (renamed by the file namer below), "?" if
 * none.
 * A task stopped in mrr's page gets a first line "0xADDR [mrr's syscall
 * page]", and the unwinding goes on from the caller of the page. At most
 * MRR_BACKTRACE_MAX_FRAMES frames; frames that do not fit whole in buflen
 * are left out. buf is always NUL-terminated when buflen > 0.
 *
 * Returns the number of frames written (0 if even the first did not fit),
 * or -ESRCH (no such stopped task), -ENOMEM, -EINVAL (the unwinder could
 * not start on the task's registers). Reads the task's memory and registers
 * only; the task stays stopped. Keeps the unwinder's state for the last
 * task unwound until its mappings change: not thread-safe. */
int mrr_backtrace(pid_t tid, char *buf, size_t buflen)
	__attribute__((warn_unused_result));

/* Names files in later backtraces: namer(ctx, path) gets the path of a
 * mapped file as /proc/TID/maps gives it and returns the name to print
 * (a replay maps copies of the recorded files and prints the paths they
 * had at record), or NULL to print the path. NULL namer: paths as they
 * are. */
void mrr_backtrace_set_file_namer(const char *(*namer)(void *ctx,
						       const char *path),
				  void *ctx);

#endif
