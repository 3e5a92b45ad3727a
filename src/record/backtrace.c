/* Unwinding a ptrace-stopped task with libunwind-ptrace. Symbols come from
 * the ELF symbol tables of the files the task has mapped (libunwind reads
 * them from disk, through /proc/TID/maps); where none names the function,
 * a frame shows its file and the offset in it. */
#define _GNU_SOURCE
#include "record/backtrace.h"

#include "core/tracee.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libunwind-ptrace.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

struct file_map {
	uint64_t start, end, offset;
	char *path;
};

struct maps {
	struct file_map *v;
	size_t n;
	char *text;    /* owns the path strings */
	uint64_t hash; /* of the maps text, to see when it changed */
};

/* The unwinder's state for the task last unwound. libunwind-ptrace keeps
 * the ELF image and unwind tables it last used in its per-task handle, so
 * keeping the handle between backtraces of the same task, while its
 * mappings stay the same, saves reading them again for each one. */
static struct {
	pid_t tid;
	uint64_t maps_hash;
	unw_addr_space_t as;
	void *upt;
} cache;

static void cache_drop(void)
{
	if (cache.upt)
		_UPT_destroy(cache.upt);
	if (cache.as)
		unw_destroy_addr_space(cache.as);
	memset(&cache, 0, sizeof(cache));
}

/* Registers the unwinder starts from: the task's, except where a frame
 * without unwind information (mrr's page) was stepped over by hand. */
static struct {
	bool active;
	unw_word_t ip, sp;
} start_override;

/* Reads of the task's memory, one word at a time from the unwinder, served
 * from a copy of the page read once through /proc/TID/mem: PTRACE_PEEKDATA
 * per word cost hundreds of syscalls per backtrace. Valid for one
 * backtrace (the task runs between two). */
static struct {
	pid_t tid;
	int fd;
	bool valid;
	uint64_t page;
	uint8_t data[4096];
} mem_cache = {.fd = -1};

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	uint64_t page = addr & ~(uint64_t)4095;

	if (write || mem_cache.fd < 0 ||
	    addr + sizeof(*val) > page + sizeof(mem_cache.data))
		return _UPT_accessors.access_mem(as, addr, val, write, arg);
	if (!mem_cache.valid || mem_cache.page != page) {
		mem_cache.valid = pread(mem_cache.fd, mem_cache.data,
					sizeof(mem_cache.data), (off_t)page) ==
				  (ssize_t)sizeof(mem_cache.data);
		mem_cache.page = page;
		if (!mem_cache.valid)
			return _UPT_accessors.access_mem(as, addr, val, write,
							 arg);
	}
	memcpy(val, mem_cache.data + (addr - page), sizeof(*val));
	return 0;
}

static void mem_cache_open(pid_t tid)
{
	char path[64];

	mem_cache.valid = false;
	if (mem_cache.tid == tid && mem_cache.fd >= 0)
		return;
	if (mem_cache.fd >= 0)
		close(mem_cache.fd);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	mem_cache.fd = open(path, O_RDONLY | O_CLOEXEC);
	mem_cache.tid = tid;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	if (start_override.active && !write) {
		if (reg == UNW_REG_IP) {
			*val = start_override.ip;
			return 0;
		}
		if (reg == UNW_REG_SP || reg == UNW_X86_64_RSP) {
			*val = start_override.sp;
			return 0;
		}
	}
	return _UPT_accessors.access_reg(as, reg, val, write, arg);
}

/* Reads the file-backed mappings of tid. An unreadable maps file leaves m
 * empty: frames then print "?" as their file. */
static void read_maps(pid_t tid, struct maps *m)
{
	char path[64], *line, *save = NULL;
	size_t cap = 0, len = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	m->text = NULL;
	{
		char chunk[4096];
		size_t k;
		char *p;

		m->hash = 1469598103934665603ull;
		while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			p = realloc(m->text, len + k + 1);
			if (!p)
				break;
			m->text = p;
			memcpy(m->text + len, chunk, k);
			for (size_t j = 0; j < k; j++)
				m->hash = (m->hash ^ (uint8_t)chunk[j]) *
					  1099511628211ull;
			len += k;
			m->text[len] = 0;
		}
	}
	fclose(f);
	if (!m->text)
		return;
	for (line = strtok_r(m->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e, foff = 0;
		int off = 0;
		char *file;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &foff,
			   &off) < 3 ||
		    !off)
			continue;
		file = line + off;
		if (file[0] != '/')
			continue; /* anonymous, [stack], [vdso]... */
		if (m->n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			struct file_map *v = realloc(m->v, ncap * sizeof(*v));

			if (!v)
				return;
			m->v = v;
			cap = ncap;
		}
		m->v[m->n].start = s;
		m->v[m->n].end = e;
		m->v[m->n].offset = foff;
		m->v[m->n].path = file;
		m->n++;
	}
}

static const struct file_map *map_of(const struct maps *m, uint64_t addr)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return &m->v[i];
	return NULL;
}

/* One frame's line. The symbol is named only when it is the function that
 * holds ip: an ELF symbol table lists exported names only, and the nearest
 * one before a static function is some other function (malloc_usable_size
 * +0x63734). A function's unwind entry starts where the function does, so
 * a symbol that starts elsewhere is not it; the frame then shows the file
 * and the offset in it. */
static int frame_line(unw_cursor_t *cursor, const struct maps *maps,
		      unw_word_t ip, char *line, size_t len)
{
	const struct file_map *fm = map_of(maps, ip);
	const char *file = fm ? fm->path : "?";
	unw_proc_info_t pi;
	unw_word_t off = 0;
	char sym[256];
	bool named = unw_get_proc_name(cursor, sym, sizeof(sym), &off) == 0 &&
		     sym[0];

	if (named && unw_get_proc_info(cursor, &pi) == 0 && pi.start_ip &&
	    pi.start_ip != ip - off)
		named = false;
	if (named)
		return snprintf(line, len,
				"0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				(uint64_t)ip, sym, (uint64_t)off, file);
	if (fm) {
		const char *base = strrchr(fm->path, '/');

		return snprintf(line, len,
				"0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				(uint64_t)ip, base ? base + 1 : fm->path,
				(uint64_t)(ip - fm->start + fm->offset), file);
	}
	return snprintf(line, len, "0x%" PRIx64 " ?? (%s)\n", (uint64_t)ip,
			file);
}

int mrr_backtrace(pid_t tid, char *buf, size_t buflen)
{
	static unw_accessors_t accessors;
	struct user_regs_struct regs;
	unw_cursor_t cursor;
	struct maps maps;
	size_t used = 0;
	int frames = 0, ret, n;
	char line[512];

	if (buflen)
		buf[0] = 0;
	mem_cache_open(tid);
	read_maps(tid, &maps);
	if (cache.tid != tid || cache.maps_hash != maps.hash || !cache.upt) {
		cache_drop();
		accessors = _UPT_accessors;
		accessors.access_reg = access_reg;
		accessors.access_mem = access_mem;
		cache.as = unw_create_addr_space(&accessors, 0);
		if (cache.as) {
			unw_set_caching_policy(cache.as, UNW_CACHE_GLOBAL);
			cache.upt = _UPT_create(tid);
		}
		if (!cache.as || !cache.upt) {
			cache_drop();
			ret = -ENOMEM;
			goto out_free_maps;
		}
		cache.tid = tid;
		cache.maps_hash = maps.hash;
	}
	/* A stop in mrr's page (the syscall buffer's untraced syscall, which
	 * has no unwind information): `syscall; ret` has pushed nothing, so
	 * the caller's frame starts at the return address on the stack. */
	start_override.active = false;
	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) == 0 &&
	    regs.rip >= MRR_PAGE_ADDR &&
	    regs.rip < MRR_PAGE_ADDR + MRR_PAGE_SIZE) {
		uint64_t ret_addr;

		errno = 0;
		ret_addr = (uint64_t)ptrace(PTRACE_PEEKDATA, tid, regs.rsp, 0);
		n = snprintf(line, sizeof(line),
			     "0x%llx [mrr's syscall page]\n", regs.rip);
		if (!errno && n > 0 && (size_t)n + 1 <= buflen) {
			memcpy(buf, line, (size_t)n + 1);
			used = (size_t)n;
			frames = 1;
			start_override.active = true;
			start_override.ip = ret_addr;
			start_override.sp = regs.rsp + 8;
		}
	}
	ret = unw_init_remote(&cursor, cache.as, cache.upt);
	start_override.active = false;
	if (ret < 0) {
		/* libunwind reports a vanished task as a bad register read */
		ret = frames ? frames : ret == -UNW_EBADREG ? -ESRCH : -EINVAL;
		cache_drop();
		goto out_free_maps;
	}
	do {
		unw_word_t ip;

		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		n = frame_line(&cursor, &maps, ip, line, sizeof(line));
		if (n < 0 || (size_t)n >= sizeof(line) ||
		    used + (size_t)n + 1 > buflen)
			break;
		memcpy(buf + used, line, (size_t)n + 1);
		used += (size_t)n;
		frames++;
	} while (frames < MRR_BACKTRACE_MAX_FRAMES && unw_step(&cursor) > 0);
	ret = frames;
out_free_maps:
	free(maps.v);
	free(maps.text);
	return ret;
}
