/* find_sbuf.h: how a hostile test program finds its own syscall buffer, as
 * any program could: an anonymous read-write mapping with a page that
 * starts with the buffer magic "MRBF" and a protocol version of at least 1
 * (the kernel may have merged the buffer with its neighbours, so every
 * page is looked at). Returns the header, or NULL without mrr (or -n). */
#ifndef MRR_TESTS_HOSTILE_FIND_SBUF_H
#define MRR_TESTS_HOSTILE_FIND_SBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t *find_buffer(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	uint32_t *found = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end, a;
		char perms[8];
		int name = 0;

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &start, &end,
			   perms, &name) < 3 ||
		    strncmp(perms, "rw", 2) ||
		    (name && line[name] && line[name] != '\n'))
			continue;
		for (a = start; a < end && !found; a += 4096)
			if (((uint32_t *)a)[0] == 0x4642524du && /* "MRBF" */
			    ((uint32_t *)a)[1] >= 1)
				found = (uint32_t *)a;
		if (found)
			break;
	}
	if (f)
		fclose(f);
	return found;
}

#endif
