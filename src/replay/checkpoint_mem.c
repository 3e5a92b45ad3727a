/* Memory fork leaves out of a checkpoint's copy (checkpoint_mem.h). */
#include "replay/checkpoint_mem.h"

#include "core/log.h"
#include "replay/checkpoint.h"
#include "replay/ptask.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/* A mapping as /proc/PID/smaps shows it, with the VmFlags fork obeys. */
struct smaps_vma {
	uint64_t start, end;
	unsigned prot;
	bool shared;
	bool dontcopy;	 /* "dc": MADV_DONTFORK, absent in a child */
	bool wipeonfork; /* "wf": MADV_WIPEONFORK, zeroes in a child */
	char name[256];
};

/* Reads the next mapping of f (smaps). Returns 1, or 0 at the end. */
static int next_smaps_vma(FILE *f, struct smaps_vma *v)
{
	char line[512], perms[8];
	unsigned long long a, b;
	int name_at = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms,
			   &name_at) >= 3 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			memset(v, 0, sizeof(*v));
			v->start = a;
			v->end = b;
			v->prot = (perms[0] == 'r' ? PROT_READ : 0) |
				  (perms[1] == 'w' ? PROT_WRITE : 0) |
				  (perms[2] == 'x' ? PROT_EXEC : 0);
			v->shared = perms[3] == 's';
			if (name_at)
				snprintf(v->name, sizeof(v->name), "%.*s",
					 (int)strcspn(line + name_at, "\n"),
					 line + name_at);
			continue;
		}
		if (!strncmp(line, "VmFlags:", 8)) {
			v->dontcopy = strstr(line, " dc") != NULL;
			v->wipeonfork = strstr(line, " wf") != NULL;
			return 1; /* the last line of a mapping */
		}
	}
	return 0;
}

int cp_mem_save(struct cp_mem *m, struct ptask *t, const char *tmpdir,
		uint64_t *bytes, char *why, size_t whylen)
{
	size_t tlen = strlen(tmpdir);
	struct smaps_vma v;
	char path[64];
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", t->t.tid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(why, whylen, "cannot read the mappings of pid %d",
			 t->rec_tid);
		return -EIO;
	}
	while (!err && next_smaps_vma(f, &v)) {
		struct cp_range *g, *rg;
		uint64_t len = v.end - v.start;

		if (v.dontcopy) {
			snprintf(why, whylen,
				 "pid %d has memory that fork does not copy "
				 "(MADV_DONTFORK at 0x%" PRIx64 ")",
				 t->rec_tid, v.start);
			err = -ENOTSUP;
			break;
		}
		if (!v.wipeonfork &&
		    (!v.shared || (tlen && !strncmp(v.name, tmpdir, tlen) &&
				   v.name[tlen] == '/')))
			continue;
		if (*bytes + len > CHECKPOINT_MAX_SHARED) {
			snprintf(why, whylen,
				 "pid %d shares more than %llu MiB of memory "
				 "with other processes",
				 t->rec_tid, CHECKPOINT_MAX_SHARED >> 20);
			err = -EFBIG;
			break;
		}
		g = realloc(m->ranges, (m->n + 1) * sizeof(*g));
		if (!g)
			mrr_fatal("out of memory");
		m->ranges = g;
		rg = &g[m->n];
		rg->addr = v.start;
		rg->len = len;
		rg->prot = v.prot;
		rg->data = malloc(len ? len : 1);
		if (!rg->data)
			mrr_fatal("out of memory");
		m->n++;
		if (tracee_read_all(&t->t, rg->addr, rg->data, len) < 0) {
			snprintf(why, whylen,
				 "cannot read the shared memory of pid %d at "
				 "0x%" PRIx64,
				 t->rec_tid, rg->addr);
			err = -EIO;
		}
		*bytes += len;
	}
	fclose(f);
	return err;
}

static int write_back(struct ptask *t, const struct cp_range *rg)
{
	uint64_t args[6] = {rg->addr, rg->len, rg->prot | PROT_WRITE};
	int64_t ret = 0;
	int err;

	if (rg->prot & PROT_WRITE)
		return tracee_write_all(&t->t, rg->addr, rg->data, rg->len);
	err = tracee_inject_syscall(&t->t, 1, SYS_mprotect, args, &ret);
	if (!err && ret)
		err = (int)ret;
	if (!err)
		err = tracee_write_all(&t->t, rg->addr, rg->data, rg->len);
	args[2] = rg->prot;
	if (tracee_inject_syscall(&t->t, 1, SYS_mprotect, args, &ret) < 0 ||
	    ret)
		err = err ? err : -EIO;
	return err;
}

int cp_mem_restore(const struct cp_mem *m, struct ptask *t)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < m->n; i++)
		err = write_back(t, &m->ranges[i]);
	return err;
}

void cp_mem_free(struct cp_mem *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->ranges[i].data);
	free(m->ranges);
	m->ranges = NULL;
	m->n = 0;
}
