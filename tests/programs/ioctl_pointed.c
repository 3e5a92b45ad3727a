/* ioctl_pointed: ioctls whose struct names more memory the kernel fills
 * (LTP ioctl10, ioctl_fiemap01): PROCMAP_QUERY writes the mapping's name
 * at vma_name_addr (and a build id at build_id_addr), FS_IOC_FIEMAP
 * writes extents after struct fiemap. The buffers start with canaries:
 * what the program prints comes from the kernel at record and from the
 * trace at replay, and the bytes past what the kernel wrote keep their
 * canary. Kernels or file systems without them (ENOTTY, EOPNOTSUPP) are
 * recorded like any failure.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef PROCMAP_QUERY
#define PROCMAP_QUERY 0xC0686611u
#endif

struct pmq { /* struct procmap_query, linux/fs.h (6.11) */
	uint64_t size, query_flags, query_addr, vma_start, vma_end, vma_flags;
	uint64_t vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};

static void procmap(void)
{
	char name[512], id[64];
	struct pmq q;
	size_t len;
	int fd = MT_SYS(open("/proc/self/maps", O_RDONLY | O_CLOEXEC));

	memset(&q, 0, sizeof(q));
	memset(name, 'N', sizeof(name));
	memset(id, 'B', sizeof(id));
	q.size = sizeof(q);
	q.query_addr = (uint64_t)(uintptr_t)procmap;
	q.vma_name_addr = (uint64_t)(uintptr_t)name;
	q.vma_name_size = sizeof(name);
	q.build_id_addr = (uint64_t)(uintptr_t)id;
	q.build_id_size = sizeof(id);
	if (ioctl(fd, PROCMAP_QUERY, &q) < 0) {
		printf("PROCMAP_QUERY: %s\n", strerror(errno));
		close(fd);
		return;
	}
	len = strnlen(name, sizeof(name));
	MT_CHECK(len + 1 == q.vma_name_size, "name %zu, size %u", len,
		 q.vma_name_size);
	MT_CHECK(len + 1 < sizeof(name) && name[len + 1] == 'N',
		 "the byte after the name changed");
	MT_CHECK(q.build_id_size < sizeof(id) && id[q.build_id_size] == 'B',
		 "the byte after the build id changed");
	printf("PROCMAP_QUERY: %s, build id of %u bytes, first 0x%02x\n",
	       strrchr(name, '/') ? strrchr(name, '/') + 1 : name,
	       q.build_id_size, q.build_id_size ? (unsigned char)id[0] : 0);
	close(fd);
}

static void fiemap(void)
{
	char path[] = "mrr-fiemap-XXXXXX", block[4096];
	struct {
		struct fiemap f;
		struct fiemap_extent e[8];
	} m;
	unsigned i;
	int fd = mkstemp(path);

	if (fd < 0) { /* a read-only working directory */
		printf("mkstemp: %s\n", strerror(errno));
		return;
	}
	MT_SYS(unlink(path));
	memset(block, 'x', sizeof(block));
	MT_SYS(pwrite(fd, block, sizeof(block), 0));
	MT_SYS(pwrite(fd, block, sizeof(block), 1 << 20)); /* a hole */
	MT_SYS(fsync(fd));
	memset(&m, 0xa5, sizeof(m));
	memset(&m.f, 0, sizeof(m.f));
	m.f.fm_length = ~0ull;
	m.f.fm_flags = FIEMAP_FLAG_SYNC;
	m.f.fm_extent_count = 8;
	if (ioctl(fd, FS_IOC_FIEMAP, &m) < 0) {
		printf("FS_IOC_FIEMAP: %s\n", strerror(errno));
		close(fd);
		return;
	}
	MT_CHECK(m.f.fm_mapped_extents >= 1 && m.f.fm_mapped_extents <= 8,
		 "%u extents", m.f.fm_mapped_extents);
	for (i = 0; i < m.f.fm_mapped_extents; i++)
		printf("extent %u: logical %llu, length %llu, flags 0x%x\n", i,
		       (unsigned long long)m.e[i].fe_logical,
		       (unsigned long long)m.e[i].fe_length, m.e[i].fe_flags);
	if (m.f.fm_mapped_extents < 8)
		MT_CHECK(m.e[m.f.fm_mapped_extents].fe_flags == 0xa5a5a5a5,
			 "an extent past the mapped ones was written");
	close(fd);
}

int main(void)
{
	mt_init();
	procmap();
	fiemap();
	mt_pass();
	return 0;
}
