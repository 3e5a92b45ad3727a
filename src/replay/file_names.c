/* Recorded paths for the files a replay maps: its copies are named
 * "<tmpdir>/file-IDENT" (one per recorded file, src/replay/
 * replay_syscall.c), "<tmpdir>/STORED-NAME", or are the stored files
 * themselves ("<trace>/files/STORED-NAME"). */
#define _GNU_SOURCE
#include "replay/file_names.h"

#include "core/file_paths.h"
#include "core/memdigest.h"
#include "record/backtrace.h"
#include "replay/ptask.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *recorded_name(void *ctx, const char *path);

void replay_note_file_paths(struct replayer *rp)
{
	if (!rp->paths) {
		rp->paths = file_paths_new();
		/* memory digests tell the library's copy by its name */
		mem_digest_set_file_namer(recorded_name, rp);
	}
	if (rp->paths && file_paths_note(rp->paths, &rp->ev, NULL) < 0)
		return; /* out of memory: fewer names in reports */
}

/* Whether path is dir "/" base. */
static bool in_dir(const char *path, const char *dir, const char **base)
{
	size_t n = strlen(dir);

	if (!n || strncmp(path, dir, n) || path[n] != '/' ||
	    strchr(path + n + 1, '/'))
		return false;
	*base = path + n + 1;
	return true;
}

static const char *recorded_name(void *ctx, const char *path)
{
	struct replayer *rp = ctx;
	char files[PATH_MAX];
	const char *base;
	unsigned ident;
	char end;

	if (rp->tmpdir[0] && in_dir(path, rp->tmpdir, &base)) {
		if (sscanf(base, "file-%u%c", &ident, &end) == 1)
			return file_paths_of_ident(rp->paths, ident);
		return file_paths_of_name(rp->paths, base, NULL);
	}
	if ((size_t)snprintf(files, sizeof(files), "%s/files",
			     rp->o->trace_dir) < sizeof(files) &&
	    in_dir(path, files, &base))
		return file_paths_of_name(rp->paths, base, NULL);
	return NULL;
}

void replay_name_backtrace_files(struct replayer *rp)
{
	if (rp)
		mrr_backtrace_set_file_namer(recorded_name, rp);
	else
		mrr_backtrace_set_file_namer(NULL, NULL);
}

void replay_free_file_paths(struct replayer *rp)
{
	mem_digest_set_file_namer(NULL, NULL);
	file_paths_free(rp->paths);
	rp->paths = NULL;
}
