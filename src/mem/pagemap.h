/* Page residency of a task's memory, read from /proc/PID/pagemap.
 *
 * The recorder snapshots a range before and after a content-destroying
 * madvise and diffs the two snapshots to learn exactly which pages the kernel
 * dropped. Uses the PAGEMAP_SCAN ioctl (Linux 6.7+) to find resident pages
 * quickly and plain pagemap reads otherwise (and for PFNs). Not thread-safe
 * per handle.
 */
#ifndef MRR_MEM_PAGEMAP_H
#define MRR_MEM_PAGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mrr_range {
	uint64_t start; /* page aligned */
	uint64_t end;	/* exclusive, page aligned */
};

struct mrr_pagemap;	  /* per-task handle */
struct mrr_page_snapshot; /* state of the pages of one range */

/* Opens /proc/pid/pagemap. Returns 0 or -errno (-EACCES / -EPERM when the
 * caller may not read the task's memory, -ENOENT / -ESRCH when it is gone,
 * -ENOMEM). Free with mrr_pagemap_close (NULL is accepted). */
__attribute__((warn_unused_result)) int
mrr_pagemap_open(pid_t pid, struct mrr_pagemap **out);
void mrr_pagemap_close(struct mrr_pagemap *pm);

/* Whether PFNs read as non-zero for this process (needs CAP_SYS_ADMIN);
 * probed once on open. Without PFNs, diffs use only the present and swapped
 * bits. */
bool mrr_pagemap_pfn_readable(const struct mrr_pagemap *pm);
/* Whether the PAGEMAP_SCAN ioctl works (probed once on open). */
bool mrr_pagemap_has_scan(const struct mrr_pagemap *pm);
/* Forces the plain-read path (for benchmarks and tests). */
void mrr_pagemap_disable_scan(struct mrr_pagemap *pm);
/* Acts from now on as if PFNs and swap entries were unreadable, as for a
 * reader without CAP_SYS_ADMIN: snapshots keep only the present and swapped
 * bits (for tests). */
void mrr_pagemap_disable_pfn(struct mrr_pagemap *pm);

/* Records the state of every page in [start, end) (end rounded up to a page):
 * which pages are present or swapped, with PFN or swap entry. Cost is
 * proportional to the resident pages when PAGEMAP_SCAN works. Addresses past
 * the task's address space read as non-resident. The task should be stopped
 * (or be the caller) so that a diff sees only the traced call's effect.
 * Returns 0, -EINVAL (start not page aligned, end < start), -ENOMEM, or
 * another -errno from reading the pagemap. */
__attribute__((warn_unused_result)) int
mrr_pagemap_snapshot(struct mrr_pagemap *pm, uint64_t start, uint64_t end,
		     struct mrr_page_snapshot **out);
void mrr_page_snapshot_free(struct mrr_page_snapshot *s); /* NULL is fine */

/* Builds a snapshot of [start, start + n pages) from raw pagemap entries,
 * one u64 per page in the kernel's format (bit 63 present, bit 62 swapped,
 * bits 0-54 PFN or swap entry, compared as given). For tests and for
 * snapshots taken by other means. start must be page aligned. Returns 0 or
 * -EINVAL / -ENOMEM. */
__attribute__((warn_unused_result)) int
mrr_page_snapshot_from_entries(uint64_t start, const uint64_t *entries,
			       size_t n, struct mrr_page_snapshot **out);

/* Number of pages that were present or swapped in the snapshot. */
size_t mrr_page_snapshot_resident(const struct mrr_page_snapshot *s);
/* Whether the snapshot holds PFNs and swap entries (else only the present
 * and swapped bits). */
bool mrr_page_snapshot_has_pfn(const struct mrr_page_snapshot *s);

/* Pages dropped between two snapshots of the same range: resident (present
 * or swapped) before, and after neither present nor swapped, or present with
 * a different PFN (when PFNs are readable), or swapped with another swap
 * entry. Adjacent dropped pages are merged, and so are dropped ranges
 * separated only by pages that were non-resident both before and after
 * (re-dropping those is harmless). A page resident after with the same
 * frame is never included. A page that went from present to swapped or
 * back kept its content and is not included. PFNs are compared only when
 * both snapshots have them. Ranges are sorted. Returns the count and a
 * malloc'd array in *ranges (NULL when 0), or -EINVAL when the snapshots
 * cover different ranges, or -ENOMEM. */
__attribute__((warn_unused_result)) long
mrr_pagemap_dropped(const struct mrr_page_snapshot *before,
		    const struct mrr_page_snapshot *after,
		    struct mrr_range **ranges);

#endif
