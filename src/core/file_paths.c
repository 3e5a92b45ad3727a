/* A small table from stored names (and mmap idents) to the paths they had
 * at record. Traces store tens of files, so a linear table will do. */
#define _GNU_SOURCE
#include "core/file_paths.h"

#include "core/events.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

struct fp_entry {
	char name[64];	/* stored name */
	uint32_t ident; /* mmap ident, 0 for none */
	char *path;
};

struct file_paths {
	struct fp_entry *v;
	size_t n, cap;
};

struct file_paths *file_paths_new(void)
{
	return calloc(1, sizeof(struct file_paths));
}

void file_paths_free(struct file_paths *fp)
{
	if (!fp)
		return;
	for (size_t i = 0; i < fp->n; i++)
		free(fp->v[i].path);
	free(fp->v);
	free(fp);
}

/* A NUL-terminated string of at most PATH_MAX bytes at p, inside len. */
static const char *bounded_path(const char *p, size_t len)
{
	size_t n = strnlen(p, len < PATH_MAX ? len : PATH_MAX);

	return n && n < len && n < PATH_MAX ? p : NULL;
}

const char *file_paths_mmap_path(const struct mrr_event *ev)
{
	size_t base = sizeof(struct mrr_mmap_extra);

	if (ev->kind != MRR_EV_SYSCALL || ev->nr != SYS_mmap ||
	    ev->extra_len <= base || !ev->extra)
		return NULL;
	return bounded_path((const char *)ev->extra + base,
			    ev->extra_len - base);
}

static int add(struct file_paths *fp, const char *name, size_t name_max,
	       uint32_t ident, const char *path)
{
	struct fp_entry *e;
	size_t nlen = strnlen(name, name_max);

	if (!nlen || nlen >= sizeof(e->name) || !path || !path[0])
		return 0;
	for (size_t i = 0; i < fp->n; i++)
		if (fp->v[i].ident == ident &&
		    !strncmp(fp->v[i].name, name, sizeof(e->name)) &&
		    !strcmp(fp->v[i].path, path))
			return 0;
	if (fp->n == fp->cap) {
		size_t ncap = fp->cap ? fp->cap * 2 : 16;

		e = realloc(fp->v, ncap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		fp->v = e;
		fp->cap = ncap;
	}
	e = &fp->v[fp->n];
	memset(e, 0, sizeof(*e));
	memcpy(e->name, name, nlen);
	e->ident = ident;
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	fp->n++;
	return 0;
}

int file_paths_note(struct file_paths *fp, const struct mrr_event *ev,
		    const char *interp_path)
{
	/* extra may be unaligned (a reader's buffer): copied, not cast */
	if (ev->kind == MRR_EV_EXEC) {
		struct mrr_exec_extra x;
		size_t base = sizeof(x);
		const char *path;
		int err;

		if (ev->extra_len <= base || !ev->extra)
			return 0;
		memcpy(&x, ev->extra, sizeof(x));
		path = bounded_path((const char *)ev->extra + base,
				    ev->extra_len - base);
		err = add(fp, x.exe_file, sizeof(x.exe_file), 0, path);
		if (!err && interp_path)
			err = add(fp, x.interp_file, sizeof(x.interp_file), 0,
				  interp_path);
		return err;
	}
	if (file_paths_mmap_path(ev)) {
		struct mrr_mmap_extra x;

		memcpy(&x, ev->extra, sizeof(x));
		return add(fp, x.file, sizeof(x.file), x.ident,
			   file_paths_mmap_path(ev));
	}
	return 0;
}

const char *file_paths_of_name(const struct file_paths *fp, const char *name,
			       size_t *others)
{
	const char *first = NULL;
	size_t n = 0;

	for (size_t i = 0; fp && i < fp->n; i++) {
		if (strcmp(fp->v[i].name, name))
			continue;
		if (!first) {
			first = fp->v[i].path;
			continue;
		}
		/* count each other path once */
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(fp->v[j].name, name) &&
			    !strcmp(fp->v[j].path, fp->v[i].path))
				break;
		if (j == i)
			n++;
	}
	if (others)
		*others = n;
	return first;
}

const char *file_paths_of_ident(const struct file_paths *fp, uint32_t ident)
{
	const char *last = NULL;

	for (size_t i = 0; fp && ident && i < fp->n; i++)
		if (fp->v[i].ident == ident)
			last = fp->v[i].path;
	return last;
}
