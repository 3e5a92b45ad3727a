/* What the unwinder of src/record/backtrace.c needs to know about the
 * code at an address of a stopped task: which file is mapped there
 * (bt_vma_at) and what that file's ELF headers say (bt_elf_*): its load
 * bias, its .eh_frame_hdr and the function symbol covering an address.
 * Looking up one address costs one PROCMAP_QUERY ioctl (Linux 6.11+;
 * older kernels parse /proc/PID/maps once per backtrace), and each ELF
 * file is read once while its inode stays mapped, so that a backtrace
 * costs its frames rather than the size of the process's map.
 * Not thread-safe: one backtrace at a time. */
#ifndef MRR_RECORD_BT_MODULES_H
#define MRR_RECORD_BT_MODULES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A file mapping of the task. */
struct bt_vma {
	uint64_t start, end, offset;
	uint64_t dev, ino;
	char path[PATH_MAX]; /* as /proc/PID/maps names it */
};

/* Starts the lookups of one backtrace of tid: forgets the VMAs looked up
 * for an earlier one (the task ran since). */
void bt_vmas_begin(pid_t tid);

/* The file mapping of the current task covering addr. Returns it (valid
 * until the next bt_vmas_begin), or NULL: no mapping there, an anonymous
 * one ([vdso], [stack], heap, a JIT's), or /proc/PID/maps unreadable. */
const struct bt_vma *bt_vma_at(uint64_t addr);

/* Frees what the lookups hold (the maps fd, the parsed fallback map). */
void bt_vmas_end(void);

struct bt_elf;

/* The ELF file mapped by v, read once and kept while files with its
 * device, inode, size and mtime are mapped (at most a few dozen kept).
 * NULL when it is not a readable ELF file of this machine's class, or no
 * longer the file that is mapped (replaced on disk). */
const struct bt_elf *bt_elf_get(const struct bt_vma *v);

/* The load bias of e mapped as v (address = bias + ELF vaddr). false when
 * v's file offset is in no PT_LOAD segment. */
bool bt_elf_bias(const struct bt_elf *e, const struct bt_vma *v,
		 uint64_t *bias);

/* The ELF vaddr range [*lo, *hi) of e's PT_LOAD segments and the vaddr of
 * its PT_GNU_EH_FRAME (.eh_frame_hdr). false when it has none. */
bool bt_elf_eh_frame(const struct bt_elf *e, uint64_t *lo, uint64_t *hi,
		     uint64_t *hdr);

/* Copies len bytes of e's file content at ELF vaddr (inside a PT_LOAD
 * segment's file bytes) into buf. false when they are not all there. */
bool bt_elf_read(const struct bt_elf *e, uint64_t vaddr, void *buf, size_t len);

/* The function symbol (from .symtab, else .dynsym) whose [value,
 * value + size) holds vaddr, and vaddr's offset in it; NULL when none
 * covers it (a stripped library's static function: print module+offset
 * instead of the nearest exported name before it). The name lives as long
 * as e. */
const char *bt_elf_symbol(const struct bt_elf *e, uint64_t vaddr,
			  uint64_t *off);

/* Frees every cached ELF file (tests, leak checks). */
void bt_elf_cache_clear(void);

#endif
