/* Unwinding a ptrace-stopped task with libunwind-ptrace. Symbols come from
 * the ELF symbol tables of the files the task has mapped (libunwind reads
 * them from disk, through /proc/TID/maps), so a stripped binary shows "??"
 * frames but still shows its file. */
#define _GNU_SOURCE
#include "record/backtrace.h"

#include <errno.h>
#include <inttypes.h>
#include <libunwind-ptrace.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct file_map {
	uint64_t start, end;
	char *path;
};

struct maps {
	struct file_map *v;
	size_t n;
	char *text; /* owns the path strings */
};

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

		while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			p = realloc(m->text, len + k + 1);
			if (!p)
				break;
			m->text = p;
			memcpy(m->text + len, chunk, k);
			len += k;
			m->text[len] = 0;
		}
	}
	fclose(f);
	if (!m->text)
		return;
	for (line = strtok_r(m->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e;
		int off = 0;
		char *file;

		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &s, &e, &off) <
			    2 ||
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
		m->v[m->n].path = file;
		m->n++;
	}
}

static const char *file_of(const struct maps *m, uint64_t addr)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->v[i].start && addr < m->v[i].end)
			return m->v[i].path;
	return "?";
}

int mrr_backtrace(pid_t tid, char *buf, size_t buflen)
{
	unw_addr_space_t as;
	unw_cursor_t cursor;
	struct maps maps;
	size_t used = 0;
	void *upt;
	int frames = 0, ret;

	if (buflen)
		buf[0] = 0;
	as = unw_create_addr_space(&_UPT_accessors, 0);
	if (!as)
		return -ENOMEM;
	upt = _UPT_create(tid);
	if (!upt) {
		ret = -ENOMEM;
		goto out_destroy_as;
	}
	ret = unw_init_remote(&cursor, as, upt);
	if (ret < 0) {
		/* libunwind reports a vanished task as a bad register read */
		ret = ret == -UNW_EBADREG ? -ESRCH : -EINVAL;
		goto out_destroy_upt;
	}
	read_maps(tid, &maps);
	do {
		unw_word_t ip, off = 0;
		char sym[256], line[512];
		int n;

		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (unw_get_proc_name(&cursor, sym, sizeof(sym), &off) == 0 &&
		    sym[0])
			n = snprintf(line, sizeof(line),
				     "0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				     (uint64_t)ip, sym, (uint64_t)off,
				     file_of(&maps, ip));
		else
			n = snprintf(line, sizeof(line),
				     "0x%" PRIx64 " ?? (%s)\n", (uint64_t)ip,
				     file_of(&maps, ip));
		if (n < 0 || (size_t)n >= sizeof(line) ||
		    used + (size_t)n + 1 > buflen)
			break;
		memcpy(buf + used, line, (size_t)n + 1);
		used += (size_t)n;
		frames++;
	} while (frames < MRR_BACKTRACE_MAX_FRAMES && unw_step(&cursor) > 0);
	ret = frames;
	free(maps.v);
	free(maps.text);
out_destroy_upt:
	_UPT_destroy(upt);
out_destroy_as:
	unw_destroy_addr_space(as);
	return ret;
}
