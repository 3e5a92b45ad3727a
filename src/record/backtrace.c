/* Unwinding a ptrace-stopped task with libunwind-ptrace. Where a frame's
 * code comes from, its unwind table (.eh_frame_hdr, read in the task's
 * memory) and its symbol come from src/record/bt_modules.c, which looks up
 * one address at a time: libunwind's own lookups read all of
 * /proc/TID/maps for every frame. Where no symbol covers an address, a
 * frame shows its file and the offset in it. */
#define _GNU_SOURCE
#include "record/backtrace.h"

#include "core/tracee.h"
#include "record/bt_modules.h"

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

/* libunwind's search of a remote .eh_frame_hdr table (exported, not in its
 * public headers; perf calls it the same way). */
int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				       unw_dyn_info_t *di, unw_proc_info_t *pi,
				       int need_unwind_info, void *arg);

/* The .eh_frame_hdr encodings every x86-64 toolchain writes: eh_frame_ptr
 * pc-relative sdata4, fde_count udata4, table entries of two sdata4
 * relative to the header. Others go to libunwind's own (slow) lookup. */
#define EH_PCREL_SDATA4	  0x1b
#define EH_UDATA4	  0x03
#define EH_DATAREL_SDATA4 0x3b

/* The code whose unwind rules libunwind may have cached (its cache is keyed
 * by address only): when another file (or none) is mapped there later, the
 * cache is flushed before it can unwind a frame with stale rules. */
#define KNOWN_MAX 64
struct known_vma {
	uint64_t start, end, base, dev, ino; /* base: start - offset */
};

/* The unwinder's state: one address space whose register-state cache
 * lives as long as the code it describes stays mapped where it was, and
 * the libunwind-ptrace handle of the task last unwound. */
static struct {
	unw_addr_space_t as;
	pid_t tid;
	void *upt;
	struct known_vma known[KNOWN_MAX];
	unsigned nknown;
	bool stale; /* a frame met code other than the cached rules' */
} cache;

static void cache_flush(void)
{
	if (cache.as)
		unw_flush_cache(cache.as, 0, 0);
	cache.nknown = 0;
}

static void cache_drop(void)
{
	if (cache.upt)
		_UPT_destroy(cache.upt);
	if (cache.as)
		unw_destroy_addr_space(cache.as);
	memset(&cache, 0, sizeof(cache));
}

static void known_add(const struct bt_vma *v)
{
	unsigned i;

	for (i = 0; i < cache.nknown; i++)
		if (cache.known[i].start == v->start)
			return;
	if (cache.nknown == KNOWN_MAX)
		cache_flush();
	cache.known[cache.nknown++] = (struct known_vma){
		v->start, v->end, v->start - v->offset, v->dev, v->ino};
}

/* Whether the rules libunwind may hold for ip still describe the code
 * there (v: what is mapped at ip now, NULL for nothing or no file). */
static bool known_current(uint64_t ip, const struct bt_vma *v)
{
	for (unsigned i = 0; i < cache.nknown; i++) {
		const struct known_vma *k = &cache.known[i];

		if (ip < k->start || ip >= k->end)
			continue;
		return v && k->dev == v->dev && k->ino == v->ino &&
		       k->base == v->start - v->offset;
	}
	return true;
}

/* Registers the unwinder starts from: the task's, except where a frame
 * without unwind information (mrr's page) was stepped over by hand. */
static struct {
	bool active;
	unw_word_t ip, sp;
} start_override;

/* Reads of the task's memory, one word at a time from the unwinder, served
 * from pages read once through /proc/TID/mem (PTRACE_PEEKDATA per word
 * cost hundreds of syscalls per backtrace): the stack and the unwind
 * tables. Valid for one backtrace (the task runs between two). */
#define MEM_SLOTS 32
static struct {
	pid_t tid;
	int fd;
	struct {
		bool valid;
		uint64_t page;
		uint8_t data[4096];
	} slot[MEM_SLOTS];
} mem_cache = {.fd = -1};

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	uint64_t page = addr & ~(uint64_t)4095;
	unsigned i = (unsigned)(page >> 12) % MEM_SLOTS;

	if (write || mem_cache.fd < 0 || addr + sizeof(*val) > page + 4096)
		return _UPT_accessors.access_mem(as, addr, val, write, arg);
	if (!mem_cache.slot[i].valid || mem_cache.slot[i].page != page) {
		mem_cache.slot[i].page = page;
		mem_cache.slot[i].valid =
			pread(mem_cache.fd, mem_cache.slot[i].data, 4096,
			      (off_t)page) == 4096;
		if (!mem_cache.slot[i].valid)
			return _UPT_accessors.access_mem(as, addr, val, write,
							 arg);
	}
	memcpy(val, mem_cache.slot[i].data + (addr - page), sizeof(*val));
	return 0;
}

static void mem_cache_open(pid_t tid)
{
	char path[64];

	for (unsigned i = 0; i < MEM_SLOTS; i++)
		mem_cache.slot[i].valid = false;
	if (mem_cache.tid == tid && mem_cache.fd >= 0)
		return;
	if (mem_cache.fd >= 0)
		close(mem_cache.fd);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	mem_cache.fd = open(path, O_RDONLY | O_CLOEXEC);
	mem_cache.tid = tid;
}

/* The unwind entry for ip from the .eh_frame_hdr of the file mapped there,
 * searched in the task's memory. */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need_unwind_info, void *arg)
{
	const struct bt_vma *v = bt_vma_at(ip);
	const struct bt_elf *e = v ? bt_elf_get(v) : NULL;
	uint64_t bias, lo, hi, hdr_vaddr;
	uint8_t hdr[12];
	uint32_t fde_count;
	unw_dyn_info_t di;
	int ret;

	if (!v)
		return -UNW_ENOINFO; /* no file: [vdso], a JIT's code */
	if (!e || !bt_elf_bias(e, v, &bias) ||
	    !bt_elf_eh_frame(e, &lo, &hi, &hdr_vaddr) ||
	    !bt_elf_read(e, hdr_vaddr, hdr, sizeof(hdr)) || hdr[0] != 1 ||
	    hdr[1] != EH_PCREL_SDATA4 || hdr[2] != EH_UDATA4 ||
	    hdr[3] != EH_DATAREL_SDATA4) {
		ret = _UPT_find_proc_info(as, ip, pi, need_unwind_info, arg);
		if (ret >= 0)
			known_add(v);
		return ret;
	}
	memcpy(&fde_count, hdr + 8, sizeof(fde_count));
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = bias + lo;
	di.end_ip = bias + hi;
	di.u.rti.segbase = bias + hdr_vaddr;
	di.u.rti.table_data = bias + hdr_vaddr + sizeof(hdr);
	di.u.rti.table_len = (uint64_t)fde_count * 8 / sizeof(unw_word_t);
	ret = _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi,
						 need_unwind_info, arg);
	if (ret >= 0)
		known_add(v);
	return ret;
}

/* libunwind frees what the table search allocated itself. */
static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

/* No dynamically registered unwind info (JITs that register with
 * libunwind): libunwind-ptrace would look for it in every file mapped. */
static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
				  void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
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

static const char *(*file_namer)(void *ctx, const char *path);
static void *file_namer_ctx;

void mrr_backtrace_set_file_namer(const char *(*namer)(void *ctx,
						       const char *path),
				  void *ctx)
{
	file_namer = namer;
	file_namer_ctx = ctx;
}

static const char *file_name(const struct bt_vma *v)
{
	const char *name = NULL;

	if (!v)
		return "?";
	if (file_namer)
		name = file_namer(file_namer_ctx, v->path);
	return name ? name : v->path;
}

/* One frame's line. The symbol is named only when its [value, value +
 * size) holds the address: the nearest exported name before a stripped
 * library's static function is some other function (malloc_usable_size
 * +0x63734); the frame then shows the file and the offset in it. A return
 * address (every frame but the innermost) is looked up one byte back:
 * after a call that never returns it may be past its function's end. */
static int frame_line(unw_word_t ip, bool innermost, char *line, size_t len)
{
	uint64_t at = innermost ? ip : ip - 1, bias, off;
	const struct bt_vma *v = bt_vma_at(at);
	const struct bt_elf *e = v ? bt_elf_get(v) : NULL;
	const char *file = file_name(v), *sym = NULL, *base;

	if (e && bt_elf_bias(e, v, &bias))
		sym = bt_elf_symbol(e, at - bias, &off);
	if (sym)
		return snprintf(line, len,
				"0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				(uint64_t)ip, sym, off + (ip - at), file);
	if (v) {
		base = strrchr(file, '/');
		return snprintf(line, len,
				"0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				(uint64_t)ip, base ? base + 1 : file,
				(uint64_t)(ip - v->start + v->offset), file);
	}
	return snprintf(line, len, "0x%" PRIx64 " ?? (?)\n", (uint64_t)ip);
}

/* Unwinds from the task's registers (or start_override) into buf after
 * its first used bytes. Returns the frames written in all, or -errno. */
static int unwind(size_t used, int frames, char *buf, size_t buflen,
		  bool override)
{
	unw_cursor_t cursor;
	bool innermost = !override;
	char line[512];
	int ret, n;

	start_override.active = override;
	ret = unw_init_remote(&cursor, cache.as, cache.upt);
	start_override.active = false;
	if (ret < 0)
		/* libunwind reports a vanished task as a bad register read */
		return frames ? frames : ret == -UNW_EBADREG ? -ESRCH : -EINVAL;
	do {
		unw_word_t ip;
		uint64_t at;

		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		at = innermost ? ip : ip - 1;
		if (!known_current(at, bt_vma_at(at))) {
			cache.stale = true;
			break;
		}
		n = frame_line(ip, innermost, line, sizeof(line));
		innermost = false;
		if (n < 0 || (size_t)n >= sizeof(line) ||
		    used + (size_t)n + 1 > buflen)
			break;
		memcpy(buf + used, line, (size_t)n + 1);
		used += (size_t)n;
		frames++;
	} while (frames < MRR_BACKTRACE_MAX_FRAMES && unw_step(&cursor) > 0);
	return frames;
}

int mrr_backtrace(pid_t tid, char *buf, size_t buflen)
{
	struct user_regs_struct regs;
	size_t used = 0;
	int frames = 0, ret, n;
	bool override = false;
	char line[512];

	if (buflen)
		buf[0] = 0;
	mem_cache_open(tid);
	bt_vmas_begin(tid);
	if (!cache.as) {
		static unw_accessors_t accessors;

		accessors = _UPT_accessors;
		accessors.access_reg = access_reg;
		accessors.access_mem = access_mem;
		accessors.find_proc_info = find_proc_info;
		accessors.put_unwind_info = put_unwind_info;
		accessors.get_dyn_info_list_addr = get_dyn_info_list_addr;
		cache.as = unw_create_addr_space(&accessors, 0);
		if (!cache.as)
			return -ENOMEM;
		unw_set_caching_policy(cache.as, UNW_CACHE_GLOBAL);
	}
	if (cache.tid != tid || !cache.upt) {
		if (cache.upt)
			_UPT_destroy(cache.upt);
		cache.upt = _UPT_create(tid);
		if (!cache.upt)
			return -ENOMEM;
		cache.tid = tid;
	}
	/* A stop in mrr's page (the syscall buffer's untraced syscall, which
	 * has no unwind information): `syscall; ret` has pushed nothing, so
	 * the caller's frame starts at the return address on the stack. */
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
			override = true;
			start_override.ip = ret_addr;
			start_override.sp = regs.rsp + 8;
		}
	}
	cache.stale = false;
	ret = unwind(used, frames, buf, buflen, override);
	if (cache.stale) {
		/* code moved since libunwind cached its rules: again, afresh */
		cache_flush();
		cache.stale = false;
		ret = unwind(used, frames, buf, buflen, override);
		if (cache.stale)
			cache_flush();
	}
	if (ret < 0)
		cache_drop();
	return ret;
}
