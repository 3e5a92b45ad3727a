/* code_checksum: hashes the code of its own executable and of libc as they
 * are mapped (the PF_X PT_LOAD segments dl_iterate_phdr reports), and
 * compares each with the same bytes read from the file. A program that
 * checksums its loaded code must see the same value under mrr as natively
 * where rdtsc traps (mrr then leaves code alone), and at record and replay
 * alike where mrr rewrites rdtsc sites to ud2. The only difference from the
 * file allowed is such a rewrite: ud2 where the file has rdtsc or rdtscp.
 * The program executes rdtsc itself, so its executable has a site. */
#include "mrr_test.h"

#include <fcntl.h>
#include <link.h>
#include <stdint.h>

struct seen {
	int objects; /* exe and libc found */
};

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static __attribute__((noinline)) uint64_t read_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/* Counts the rewritten rdtsc/rdtscp sites (ud2 in mapped where file has
 * rdtsc or rdtscp); fails on any other difference. */
static int rewritten_sites(const char *what, const uint8_t *mapped,
			   const uint8_t *file, size_t n)
{
	size_t i = 0;
	int sites = 0;

	while (i < n) {
		if (i + 2 <= n && mapped[i] == 0x0f && mapped[i + 1] == 0x0b &&
		    file[i] == 0x0f && file[i + 1] == 0x31) {
			i += 2; /* rdtsc */
			sites++;
			continue;
		}
		if (i + 3 <= n && mapped[i] == 0x0f && mapped[i + 1] == 0x0b &&
		    mapped[i + 2] == 0x90 && file[i] == 0x0f &&
		    file[i + 1] == 0x01 && file[i + 2] == 0xf9) {
			i += 3; /* rdtscp */
			sites++;
			continue;
		}
		MT_CHECK(mapped[i] == file[i],
			 "%s: code differs from its file at +0x%zx", what, i);
		i++;
	}
	return sites;
}

static int one_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seen *seen = arg;
	const char *name = info->dlpi_name;
	const char *what, *path;
	int fd, i, segments = 0, sites = 0;
	uint64_t mapped_hash = 0, file_hash = 0;
	size_t bytes = 0;

	(void)size;
	if (!name[0]) {
		what = "exe";
		path = "/proc/self/exe";
	} else if (strstr(name, "/libc.so")) {
		what = "libc";
		path = name;
	} else {
		return 0; /* the loader, mrr's preload library: not native */
	}
	fd = MT_SYS(open(path, O_RDONLY | O_CLOEXEC));
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *mapped;
		uint8_t *file;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		mapped = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		file = malloc(ph->p_filesz);
		MT_CHECK(file, "out of memory");
		MT_CHECK(pread(fd, file, ph->p_filesz, (off_t)ph->p_offset) ==
				 (ssize_t)ph->p_filesz,
			 "short read of %s", path);
		mapped_hash ^= fnv1a(mapped, ph->p_filesz);
		file_hash ^= fnv1a(file, ph->p_filesz);
		sites += rewritten_sites(what, mapped, file, ph->p_filesz);
		bytes += ph->p_filesz;
		segments++;
		free(file);
	}
	close(fd);
	MT_CHECK(segments > 0, "%s has no code segment", what);
	printf("%s: %d code segment(s), %zu bytes, mapped hash %016llx, "
	       "file hash %016llx, rewritten rdtsc sites: %d\n",
	       what, segments, bytes, (unsigned long long)mapped_hash,
	       (unsigned long long)file_hash, sites);
	seen->objects++;
	return 0;
}

int main(void)
{
	struct seen seen = {0};
	uint64_t a, b;

	mt_init();
	a = read_tsc();
	dl_iterate_phdr(one_object, &seen);
	b = read_tsc();
	MT_CHECK(seen.objects == 2, "found %d of exe and libc", seen.objects);
	MT_CHECK(b >= a, "rdtsc went back");
	mt_pass();
	return 0;
}
