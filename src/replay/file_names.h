/* A replay runs copies of the recorded files (the trace's stored files,
 * and private copies in its tmpdir): these name them, in the replay's
 * reports, by the paths they had at record. */
#ifndef MRR_REPLAY_FILE_NAMES_H
#define MRR_REPLAY_FILE_NAMES_H

struct replayer;

/* Notes the paths that rp->ev (just read) gives its stored files. Runs out
 * of memory quietly: the names are for reports, and for memory digests,
 * which tell the syscall buffer library's copy by its recorded path
 * (mem_digest_set_file_namer; a library left unnamed makes the digest of
 * a point differ, a divergence, never a wrong replay). */
void replay_note_file_paths(struct replayer *rp);

/* Makes mrr_backtrace() name the replay's copies by their recorded paths
 * (those noted so far, and later), or stops it (rp NULL). */
void replay_name_backtrace_files(struct replayer *rp);

/* Frees what replay_note_file_paths() noted. */
void replay_free_file_paths(struct replayer *rp);

#endif
