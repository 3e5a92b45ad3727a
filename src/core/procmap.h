/* PROCMAP_QUERY (Linux 6.11): an ioctl on an open /proc/PID/maps that
 * answers "the VMA covering (or after) this address" without the text of
 * the whole map. Debian 12's headers predate it; layout and values from
 * include/uapi/linux/fs.h. Kernels without it fail the ioctl with ENOTTY
 * (EINVAL for a size they do not know): callers then parse the maps. */
#ifndef MRR_CORE_PROCMAP_H
#define MRR_CORE_PROCMAP_H

#include <stdint.h>
#include <sys/ioctl.h>

struct mrr_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define MRR_PROCMAP_QUERY	     _IOWR('f', 17, struct mrr_procmap_query)
#define MRR_PROCMAP_COVERING_OR_NEXT 0x10
#define MRR_PROCMAP_VMA_READABLE     0x1
#define MRR_PROCMAP_VMA_WRITABLE     0x2
#define MRR_PROCMAP_VMA_EXECUTABLE   0x4
#define MRR_PROCMAP_VMA_SHARED	     0x8

#endif
