#include "core/tsc_patch.h"

#include "core/insn.h"
#include "core/proc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_TRAPPED 3 /* the probe child's exit status when rdtsc faulted */

static void probe_on_segv(int sig)
{
	(void)sig;
	_exit(PROBE_TRAPPED);
}

bool tsc_trap_works(void)
{
	const char *no_trap = getenv("MRR_TSC_NO_TRAP");
	int status;
	pid_t pid;

	if (no_trap && strcmp(no_trap, "1") == 0)
		return false; /* a test pretends to run where rdtsc never traps
			       */
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		struct sigaction sa = {0};
		sigset_t segv;
		uint32_t lo, hi;

		/* a handler, not the default action: no core dump */
		sa.sa_handler = probe_on_segv;
		sigaction(SIGSEGV, &sa, NULL);
		sigemptyset(&segv);
		sigaddset(&segv, SIGSEGV);
		sigprocmask(SIG_UNBLOCK, &segv, NULL);
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) < 0)
			_exit(0);
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		(void)lo;
		(void)hi;
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == PROBE_TRAPPED;
}

int tsc_choose_mode(void)
{
	const char *v = getenv("MRR_TSC_MODE");
	bool traps;

	if (v && strcmp(v, "rewrite") == 0)
		return TSC_MODE_REWRITE;
	if (v && v[0] && strcmp(v, "trap") != 0 && strcmp(v, "auto") != 0)
		return -EINVAL;
	traps = tsc_trap_works();
	if (v && strcmp(v, "trap") == 0 && !traps)
		return -ENOTSUP;
	return traps ? TSC_MODE_TRAP : TSC_MODE_REWRITE;
}

const uint8_t *tsc_patch_bytes(unsigned len)
{
	static const uint8_t ud2_nop[3] = {0x0f, 0x0b, 0x90};

	(void)len;
	return ud2_nop;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* File offsets of function symbols inside executable segments, sorted. */
static size_t function_starts(const uint8_t *f, size_t size,
			      const Elf64_Ehdr *eh, const Elf64_Phdr *ph,
			      uint64_t **out)
{
	const Elf64_Shdr *sh;
	uint64_t *starts = NULL;
	size_t n = 0, cap = 0;
	int i;

	*out = NULL;
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return 0;
	sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		size_t count, j;

		if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
			continue;
		if (sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		count = sh[i].sh_size / sizeof(Elf64_Sym);
		for (j = 0; j < count; j++) {
			int k;

			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC ||
			    !sym[j].st_value)
				continue;
			for (k = 0; k < eh->e_phnum; k++) {
				const Elf64_Phdr *p = &ph[k];

				if (p->p_type != PT_LOAD ||
				    !(p->p_flags & PF_X) ||
				    sym[j].st_value < p->p_vaddr ||
				    sym[j].st_value >= p->p_vaddr + p->p_filesz)
					continue;
				if (n == cap) {
					uint64_t *g;
					cap = cap ? cap * 2 : 1024;
					g = realloc(starts, cap * sizeof(*g));
					if (!g)
						goto out;
					starts = g;
				}
				starts[n++] = sym[j].st_value - p->p_vaddr +
					      p->p_offset;
				break;
			}
		}
	}
out:
	if (n)
		qsort(starts, n, sizeof(*starts), cmp_u64);
	*out = starts;
	return n;
}

static uint64_t sync_point(const uint64_t *starts, size_t n, uint64_t off,
			   uint64_t seg_start)
{
	size_t lo = 0, hi = n;
	uint64_t best = seg_start;

	while (lo < hi) { /* last start <= off */
		size_t mid = (lo + hi) / 2;
		if (starts[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && starts[lo - 1] >= seg_start)
		best = starts[lo - 1];
	/* x86 decoding falls back into step within a few instructions, so a
	 * far-away symbol is not needed */
	if (off - best > 2048)
		best = off - 2048;
	return best;
}

/* Whether an instruction starts exactly at off when decoding from start. */
static unsigned decode_at(const uint8_t *f, uint64_t start, uint64_t off,
			  uint64_t end)
{
	uint64_t pos = start;

	while (pos < off) {
		unsigned len = 0;
		uint64_t avail = end - pos < 16 ? end - pos : 16;

		mrr_decode_tsc(f + pos, (size_t)avail, pos, &len);
		pos += len ? len : 1;
	}
	if (pos == off) {
		unsigned len = 0;
		uint64_t avail = end - pos < 16 ? end - pos : 16;
		enum mrr_tsc_insn k =
			mrr_decode_tsc(f + pos, (size_t)avail, pos, &len);
		if (k != MRR_INSN_OTHER)
			return len;
	}
	return 0;
}

long tsc_find_sites(const char *path, struct tsc_site **out)
{
	struct tsc_site *sites = NULL;
	uint64_t *starts = NULL;
	size_t nsites = 0, nstarts, size;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	struct stat st;
	uint8_t *f;
	int fd, i;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return 0;
	}
	size = (size_t)st.st_size;
	f = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return -errno;
	eh = (const Elf64_Ehdr *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff > size ||
	    (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
		goto out_unmap;
	ph = (const Elf64_Phdr *)(f + eh->e_phoff);
	nstarts = function_starts(f, size, eh, ph, &starts);
	for (i = 0; i < eh->e_phnum; i++) {
		uint64_t seg, end, off;

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		seg = ph[i].p_offset;
		end = seg + ph[i].p_filesz;
		if (seg > size || end > size)
			continue;
		for (off = seg; off + 1 < end; off++) {
			unsigned len;

			if (f[off] != 0x0f ||
			    (f[off + 1] != 0x31 &&
			     !(f[off + 1] == 0x01 && off + 2 < end &&
			       f[off + 2] == 0xf9)))
				continue;
			len = decode_at(f,
					sync_point(starts, nstarts, off, seg),
					off, end);
			if (!len)
				continue;
			if (nsites % 64 == 0) {
				struct tsc_site *g = realloc(
					sites, (nsites + 64) * sizeof(*g));
				if (!g)
					break;
				sites = g;
			}
			sites[nsites].offset = off;
			sites[nsites].len = (uint8_t)len;
			nsites++;
		}
	}
out_unmap:
	free(starts);
	munmap(f, size);
	*out = sites;
	return (long)nsites;
}

int tsc_patched_insn(pid_t pid, uint64_t ip, unsigned *len)
{
	struct proc_vma *v;
	long n = proc_read_vmas(pid, false, &v), i;
	int kind = 0;

	for (i = 0; i < n; i++) {
		uint8_t code[3];
		unsigned l = 0;
		int fd;

		if (ip < v[i].start || ip >= v[i].end || v[i].anon)
			continue;
		fd = open(v[i].name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if (pread(fd, code, sizeof(code),
			  (off_t)(ip - v[i].start + v[i].offset)) ==
		    sizeof(code)) {
			enum mrr_tsc_insn k =
				mrr_decode_tsc(code, sizeof(code), ip, &l);
			if (k != MRR_INSN_OTHER) {
				kind = k == MRR_INSN_RDTSCP ? 2 : 1;
				*len = l;
			}
		}
		close(fd);
		break;
	}
	if (n > 0)
		free(v);
	return kind;
}
