/* The paths stored files had at record: a trace names every file it keeps
 * by the hash of its content (trace-format/FORMAT.md, section 8), and its
 * exec and mmap events say which path each was executed or mapped from.
 * `mrr dump -s` lists them beside the stored names, and a replay's
 * backtraces print them instead of the paths of its own copies. */
#ifndef MRR_CORE_FILE_PATHS_H
#define MRR_CORE_FILE_PATHS_H

#include "mrr/trace.h"

#include <stddef.h>
#include <stdint.h>

struct file_paths;

/* An empty table, or NULL (out of memory). Free with file_paths_free(),
 * which accepts NULL. */
struct file_paths *file_paths_new(void);
void file_paths_free(struct file_paths *fp);

/* Notes the stored files and paths that ev names: an MRR_EV_EXEC's
 * executable (the path the program gave execve) and, when interp_path is
 * not NULL, its interpreter; an mmap's file (the path it was mapped from,
 * in traces written since mmap events carry it). Other events, and
 * malformed ones, are ignored. Returns 0 or -ENOMEM. */
int file_paths_note(struct file_paths *fp, const struct mrr_event *ev,
		    const char *interp_path)
	__attribute__((warn_unused_result));

/* The first path noted for stored file name, or NULL; *others (if not
 * NULL) gets how many other paths the same content had. */
const char *file_paths_of_name(const struct file_paths *fp, const char *name,
			       size_t *others);

/* The last path noted for the file with mmap ident (the ident of struct
 * mrr_mmap_extra, from 1), or NULL. */
const char *file_paths_of_ident(const struct file_paths *fp, uint32_t ident);

/* The path at record of an mmap event's file: the bytes after struct
 * mrr_mmap_extra, NUL-terminated inside extra. NULL for an older trace's
 * event, an anonymous mapping, or one that is malformed. */
const char *file_paths_mmap_path(const struct mrr_event *ev);

#endif
