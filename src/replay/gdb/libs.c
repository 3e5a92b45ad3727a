/* qXfer:libraries-svr4:read: the dynamic loader's list of loaded objects
 * (r_debug.r_map, found through the program's DT_DEBUG), so that gdb
 * knows the shared libraries without reading the list itself. */
#include "replay/gdb/target.h"

#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* auxv value of type, or 0 */
static uint64_t auxv_get(pid_t tid, uint64_t type)
{
	char path[64];
	uint64_t kv[2], v = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, kv, sizeof(kv)) == (ssize_t)sizeof(kv) && kv[0])
		if (kv[0] == type)
			v = kv[1];
	close(fd);
	return v;
}

/* The address of the program's r_debug, or 0 (not set up yet). */
static uint64_t r_debug_addr(struct ptask *t)
{
	uint64_t phdr = auxv_get(t->t.tid, AT_PHDR);
	uint64_t phnum = auxv_get(t->t.tid, AT_PHNUM), bias = 0, dyn = 0;
	Elf64_Phdr ph;
	Elf64_Dyn d;

	for (uint64_t i = 0; phdr && i < phnum && i < 64; i++) {
		if (tracee_read_all(&t->t, phdr + i * sizeof(ph), &ph,
				    sizeof(ph)) < 0)
			return 0;
		if (ph.p_type == PT_PHDR)
			bias = phdr - ph.p_vaddr;
		else if (ph.p_type == PT_DYNAMIC)
			dyn = ph.p_vaddr;
	}
	if (!dyn)
		return 0;
	for (uint64_t a = dyn + bias, i = 0; i < 512; i++, a += sizeof(d)) {
		if (tracee_read_all(&t->t, a, &d, sizeof(d)) < 0 ||
		    d.d_tag == DT_NULL)
			return 0;
		if (d.d_tag == DT_DEBUG)
			return d.d_un.d_ptr;
	}
	return 0;
}

/* Appends s to out (XML-escaped when esc) within cap. */
static void put(char *out, size_t cap, size_t *n, const char *s, bool esc)
{
	for (; *s && *n + 7 < cap; s++) {
		const char *e = NULL;

		if (esc && *s == '&')
			e = "&amp;";
		else if (esc && *s == '<')
			e = "&lt;";
		else if (esc && *s == '"')
			e = "&quot;";
		if (e) {
			memcpy(out + *n, e, strlen(e));
			*n += strlen(e);
		} else {
			out[(*n)++] = *s;
		}
	}
	out[*n] = 0;
}

size_t gdb_libraries_xml(struct gdb_server *s, char *out, size_t cap)
{
	struct ptask *t = gdb_task(s);
	uint64_t rd = t ? r_debug_addr(t) : 0, lm = 0, main_lm = 0;
	char line[512], name[400];
	size_t n = 0;
	int count = 0;

	out[0] = 0;
	/* struct r_debug: int r_version; struct link_map *r_map; ... */
	if (rd && tracee_read_all(&t->t, rd + 8, &lm, 8) < 0)
		lm = 0;
	main_lm = lm;
	snprintf(line, sizeof(line),
		 "<library-list-svr4 version=\"1.0\" main-lm=\"0x%" PRIx64
		 "\">",
		 main_lm);
	put(out, cap, &n, line, false);
	while (lm && count++ < 4096) {
		/* struct link_map: l_addr, l_name, l_ld, l_next, l_prev */
		uint64_t l[5];

		if (tracee_read_all(&t->t, lm, l, sizeof(l)) < 0)
			break;
		if (lm != main_lm &&
		    tracee_read_str(&t->t, l[1], name, sizeof(name)) == 0 &&
		    name[0]) {
			put(out, cap, &n, "<library name=\"", false);
			put(out, cap, &n, name, true);
			snprintf(line, sizeof(line),
				 "\" lm=\"0x%" PRIx64
				 "\" lmid=\"0x0\" l_addr=\"0x%" PRIx64
				 "\" l_ld=\"0x%" PRIx64 "\"/>",
				 lm, l[0], l[2]);
			put(out, cap, &n, line, false);
		}
		lm = l[3];
	}
	put(out, cap, &n, "</library-list-svr4>", false);
	return n;
}
