/* Files mapped at code addresses, and their ELF headers and symbols, for
 * the unwinder. libunwind-ptrace finds both by reading all of
 * /proc/PID/maps for every frame and mapping the file again each time,
 * which an allocator's thousands of VMAs made cost tens of milliseconds a
 * backtrace; here one address costs one ioctl and one file is read once. */
#define _GNU_SOURCE
#include "record/bt_modules.h"

#include "core/procmap.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* VMAs looked up during one backtrace: its frames fall into a few. */
#define SEEN_MAX 16
/* ELF files kept between backtraces. */
#define ELF_MAX 48

static struct {
	pid_t tid;
	int maps_fd;   /* /proc/TID/maps, for PROCMAP_QUERY */
	bool no_query; /* the kernel lacks PROCMAP_QUERY */
	struct bt_vma seen[SEEN_MAX];
	unsigned nseen, next_seen;
	struct bt_vma *parsed; /* fallback: every file mapping */
	size_t nparsed, parsed_cap;
	bool parsed_valid;
} vs = {.maps_fd = -1};

void bt_vmas_begin(pid_t tid)
{
	static int forced_off = -1; /* tests and benchmarks: the fallback */

	if (forced_off < 0) {
		forced_off = getenv("MRR_NO_PROCMAP_QUERY") != NULL;
		vs.no_query = forced_off;
	}
	if (vs.maps_fd >= 0 && vs.tid != tid) {
		close(vs.maps_fd);
		vs.maps_fd = -1;
	}
	vs.tid = tid;
	vs.nseen = vs.next_seen = 0;
	vs.parsed_valid = false;
}

void bt_vmas_end(void)
{
	if (vs.maps_fd >= 0)
		close(vs.maps_fd);
	vs.maps_fd = -1;
	free(vs.parsed);
	vs.parsed = NULL;
	vs.nparsed = vs.parsed_cap = 0;
	vs.parsed_valid = false;
}

static int maps_fd(void)
{
	char path[64];

	if (vs.maps_fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)vs.tid);
		vs.maps_fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	return vs.maps_fd;
}

/* 1 found, 0 no file mapping there, -1 no PROCMAP_QUERY or no maps */
static int query(uint64_t addr, struct bt_vma *out)
{
	struct mrr_procmap_query q = {0};
	int fd = maps_fd();

	if (fd < 0)
		return -1;
	q.size = sizeof(q);
	q.query_addr = addr; /* covering only */
	q.vma_name_addr = (uint64_t)(uintptr_t)out->path;
	q.vma_name_size = sizeof(out->path);
	if (ioctl(fd, MRR_PROCMAP_QUERY, &q) < 0) {
		if (errno == ENOTTY || errno == EINVAL) {
			vs.no_query = true;
			return -1;
		}
		return 0; /* ENOENT: nothing mapped there; ESRCH: gone */
	}
	if (!q.vma_name_size || out->path[0] != '/')
		return 0;
	out->start = q.vma_start;
	out->end = q.vma_end;
	out->offset = q.vma_offset;
	out->ino = q.inode;
	out->dev = makedev(q.dev_major, q.dev_minor);
	return 1;
}

/* The fallback: the file mappings of /proc/TID/maps, read once per
 * backtrace. */
static void parse_maps(void)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	struct bt_vma *v;
	FILE *f;

	vs.parsed_valid = true;
	vs.nparsed = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)vs.tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		unsigned long long s, e, off, ino;
		unsigned maj, min;
		int name = 0;
		size_t len;

		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu %n", &s, &e,
			   &off, &maj, &min, &ino, &name) < 6 ||
		    !name || line[name] != '/')
			continue;
		if (vs.nparsed == vs.parsed_cap) {
			size_t ncap = vs.parsed_cap ? vs.parsed_cap * 2 : 32;
			struct bt_vma *g =
				realloc(vs.parsed, ncap * sizeof(*g));

			if (!g)
				break;
			vs.parsed = g;
			vs.parsed_cap = ncap;
		}
		v = vs.parsed;
		len = strcspn(line + name, "\n");
		if (len >= sizeof(v[0].path))
			len = sizeof(v[0].path) - 1;
		memcpy(v[vs.nparsed].path, line + name, len);
		v[vs.nparsed].path[len] = 0;
		v[vs.nparsed].start = s;
		v[vs.nparsed].end = e;
		v[vs.nparsed].offset = off;
		v[vs.nparsed].dev = makedev(maj, min);
		v[vs.nparsed].ino = ino;
		vs.nparsed++;
	}
	free(line);
	fclose(f);
}

const struct bt_vma *bt_vma_at(uint64_t addr)
{
	struct bt_vma *slot;
	unsigned i;
	int r;

	for (i = 0; i < vs.nseen; i++)
		if (addr >= vs.seen[i].start && addr < vs.seen[i].end)
			return &vs.seen[i];
	if (vs.no_query) {
		if (!vs.parsed_valid)
			parse_maps();
		for (size_t k = 0; k < vs.nparsed; k++)
			if (addr >= vs.parsed[k].start &&
			    addr < vs.parsed[k].end)
				return &vs.parsed[k];
		return NULL;
	}
	slot = &vs.seen[vs.next_seen];
	r = query(addr, slot);
	if (r < 0)
		return vs.no_query ? bt_vma_at(addr) : NULL;
	if (!r)
		return NULL;
	vs.next_seen = (vs.next_seen + 1) % SEEN_MAX;
	if (vs.nseen < SEEN_MAX)
		vs.nseen++;
	return slot;
}

/* ---- ELF files ---- */

struct bt_sym {
	uint64_t value, size;
	const char *name;
};

struct bt_elf {
	uint64_t dev, ino, size;
	struct timespec mtime;
	uint64_t used; /* for eviction: the larger, the more recent */
	const unsigned char *map;
	size_t map_len;
	const Elf64_Phdr *ph;
	unsigned nph;
	bool syms_read;
	struct bt_sym *syms; /* sorted by value */
	size_t nsyms;
};

static struct bt_elf *elves[ELF_MAX];
static uint64_t elf_clock;

static void elf_free(struct bt_elf *e)
{
	if (!e)
		return;
	if (e->map)
		munmap((void *)e->map, e->map_len);
	free(e->syms);
	free(e);
}

void bt_elf_cache_clear(void)
{
	for (unsigned i = 0; i < ELF_MAX; i++) {
		elf_free(elves[i]);
		elves[i] = NULL;
	}
}

static struct bt_elf *elf_load(const char *path, const struct stat *st)
{
	struct bt_elf *e;
	const Elf64_Ehdr *eh;
	void *m;
	int fd;

	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_size < sizeof(*eh))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	eh = m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff == 0 ||
	    eh->e_phoff > (uint64_t)st->st_size ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) >
		    (uint64_t)st->st_size - eh->e_phoff) {
		munmap(m, (size_t)st->st_size);
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		munmap(m, (size_t)st->st_size);
		return NULL;
	}
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = (uint64_t)st->st_size;
	e->mtime = st->st_mtim;
	e->map = m;
	e->map_len = (size_t)st->st_size;
	e->ph = (const Elf64_Phdr *)(e->map + eh->e_phoff);
	e->nph = eh->e_phnum;
	return e;
}

const struct bt_elf *bt_elf_get(const struct bt_vma *v)
{
	struct bt_elf *e;
	struct stat st;
	unsigned i, victim = 0;

	/* the file at the path must still be the one mapped: same inode */
	if (stat(v->path, &st) < 0 || st.st_dev != v->dev ||
	    st.st_ino != v->ino)
		return NULL;
	for (i = 0; i < ELF_MAX; i++) {
		e = elves[i];
		if (!e) {
			victim = i;
			continue;
		}
		if (e->dev == st.st_dev && e->ino == st.st_ino) {
			if (e->size == (uint64_t)st.st_size &&
			    e->mtime.tv_sec == st.st_mtim.tv_sec &&
			    e->mtime.tv_nsec == st.st_mtim.tv_nsec) {
				e->used = ++elf_clock;
				return e;
			}
			elf_free(e); /* rewritten in place */
			elves[i] = NULL;
			victim = i;
			break;
		}
		if (elves[victim] && e->used < elves[victim]->used)
			victim = i;
	}
	e = elf_load(v->path, &st);
	if (!e)
		return NULL;
	elf_free(elves[victim]);
	elves[victim] = e;
	e->used = ++elf_clock;
	return e;
}

bool bt_elf_bias(const struct bt_elf *e, const struct bt_vma *v, uint64_t *bias)
{
	for (unsigned i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];
		uint64_t page_off = p->p_offset & ~(uint64_t)4095;

		if (p->p_type != PT_LOAD || v->offset < page_off ||
		    v->offset >= p->p_offset + p->p_filesz)
			continue;
		*bias = v->start - v->offset + p->p_offset - p->p_vaddr;
		return true;
	}
	return false;
}

bool bt_elf_eh_frame(const struct bt_elf *e, uint64_t *lo, uint64_t *hi,
		     uint64_t *hdr)
{
	bool have_hdr = false;

	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];

		if (p->p_type == PT_GNU_EH_FRAME) {
			*hdr = p->p_vaddr;
			have_hdr = true;
		} else if (p->p_type == PT_LOAD) {
			if (p->p_vaddr < *lo)
				*lo = p->p_vaddr;
			if (p->p_vaddr + p->p_memsz > *hi)
				*hi = p->p_vaddr + p->p_memsz;
		}
	}
	return have_hdr && *lo < *hi;
}

bool bt_elf_read(const struct bt_elf *e, uint64_t vaddr, void *buf, size_t len)
{
	for (unsigned i = 0; i < e->nph; i++) {
		const Elf64_Phdr *p = &e->ph[i];
		uint64_t off;

		if (p->p_type != PT_LOAD || vaddr < p->p_vaddr ||
		    vaddr - p->p_vaddr >= p->p_filesz ||
		    len > p->p_filesz - (vaddr - p->p_vaddr))
			continue;
		off = p->p_offset + (vaddr - p->p_vaddr);
		if (off > e->map_len || len > e->map_len - off)
			return false;
		memcpy(buf, e->map + off, len);
		return true;
	}
	return false;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct bt_sym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* Reads the function symbols of one symbol table section (and its string
 * table), every offset checked against the file. */
static void read_symtab(struct bt_elf *e, const Elf64_Shdr *sh,
			const Elf64_Shdr *strsh)
{
	const Elf64_Sym *sym;
	size_t n, i;
	struct bt_sym *v;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_offset > e->map_len ||
	    sh->sh_size > e->map_len - sh->sh_offset ||
	    strsh->sh_offset > e->map_len ||
	    strsh->sh_size > e->map_len - strsh->sh_offset || !strsh->sh_size)
		return;
	n = sh->sh_size / sizeof(Elf64_Sym);
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;
	sym = (const Elf64_Sym *)(e->map + sh->sh_offset);
	for (i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(sym[i].st_info);
		const char *name;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym[i].st_shndx == SHN_UNDEF || !sym[i].st_value ||
		    sym[i].st_name >= strsh->sh_size)
			continue;
		name = (const char *)e->map + strsh->sh_offset + sym[i].st_name;
		/* the string must end inside its table */
		if (!memchr(name, 0, strsh->sh_size - sym[i].st_name) ||
		    !name[0])
			continue;
		v[e->nsyms].value = sym[i].st_value;
		v[e->nsyms].size = sym[i].st_size;
		v[e->nsyms].name = name;
		e->nsyms++;
	}
	qsort(v, e->nsyms, sizeof(*v), sym_cmp);
	e->syms = v;
}

static void read_syms(struct bt_elf *e)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
	const Elf64_Shdr *sh, *dynsym = NULL, *symtab = NULL, *tab;

	e->syms_read = true;
	if (!eh->e_shoff || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > e->map_len ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) >
		    e->map_len - eh->e_shoff)
		return;
	sh = (const Elf64_Shdr *)(e->map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB)
			symtab = &sh[i];
		else if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = &sh[i];
	}
	tab = symtab ? symtab : dynsym;
	if (!tab || tab->sh_link >= eh->e_shnum)
		return;
	read_symtab(e, tab, &sh[tab->sh_link]);
	if (!e->nsyms && tab == symtab && dynsym &&
	    dynsym->sh_link < eh->e_shnum)
		read_symtab(e, dynsym, &sh[dynsym->sh_link]);
}

const char *bt_elf_symbol(const struct bt_elf *e, uint64_t vaddr, uint64_t *off)
{
	struct bt_elf *w = (struct bt_elf *)e; /* symbols are read lazily */
	size_t lo = 0, hi, i, steps;

	if (!w->syms_read)
		read_syms(w);
	hi = w->nsyms;
	/* the last symbol starting at or before vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* nested or aliased symbols: the nearest start that covers it */
	for (i = lo, steps = 0; i > 0 && steps < 32; i--, steps++) {
		const struct bt_sym *s = &w->syms[i - 1];

		if (vaddr < s->value + s->size ||
		    (s->size == 0 && vaddr == s->value)) {
			*off = vaddr - s->value;
			return s->name;
		}
	}
	return NULL;
}
