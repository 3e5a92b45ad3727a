/* The replay's private file copies (its tmpdir: copies of files mapped
 * shared, SysV shared memory segments) as they were at a checkpoint.
 * Processes map these files shared, so a forked copy of a process sees
 * every later change to them; a checkpoint keeps a copy of each file and a
 * restore writes it back into the same file (the same inode, which the
 * restored processes map). Private to src/replay. */
#ifndef MRR_REPLAY_CHECKPOINT_FILES_H
#define MRR_REPLAY_CHECKPOINT_FILES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Snapshots are named CP_FILES_PREFIX, the checkpoint's id, '-', and the
 * file's name, in the replay's tmpdir (removed with it). */
#define CP_FILES_PREFIX ".cp"

struct cp_files {
	unsigned id;
	char (*names)[NAME_MAX + 1]; /* the files of tmpdir then */
	size_t n;
};

/* Copies every file of tmpdir ("" or no such directory: none) under
 * checkpoint id's snapshot names, keeping holes, and adds the bytes they
 * hold to *bytes. A file that holds what its snapshot of checkpoint
 * prev_id (0: none) holds gets a hard link to that one instead (snapshots
 * never change), and adds nothing. Returns 0 or -errno (nothing left
 * behind). */
int cp_files_save(struct cp_files *f, const char *tmpdir, unsigned id,
		  unsigned prev_id, uint64_t *bytes);

/* Makes the files of the snapshot hold what they held then, in place (the
 * same inodes, which processes map). Files made since are left alone: the
 * replayer's table of copies, restored with the checkpoint, does not name
 * them, and it overwrites a file before it maps it. Returns 0, 1 when a
 * file had to shrink (see cp_file_overwrite), or -errno. */
int cp_files_restore(const struct cp_files *f, const char *tmpdir);

/* Makes the file out hold what in holds, written in place: data copied,
 * in's holes punched, the size set last. Unlike truncating out first, this
 * keeps the copied-on-write pages of private mappings of out (the kernel
 * takes those away only beyond a new, smaller end). Returns 0, 1 when out
 * had to shrink, or -errno. */
int cp_file_overwrite(int in, int out);

/* Removes the snapshot's files and frees it. */
void cp_files_free(struct cp_files *f, const char *tmpdir);

#endif
