/* The syscall buffer ABI shared by the preload library (src/syscallbuf/),
 * the recorder and the replayer. Its version goes into every trace header
 * (mrr_trace_info.syscallbuf_abi); change MRR_SYSCALLBUF_ABI_VERSION with
 * any layout or protocol change.
 *
 * Protocol
 * - The library maps its buffer itself (a traced mmap, so it replays at the
 *   same address) and registers it with a traced syscall numbered
 *   MRR_SYSCALL_REGISTER(buffer address, MRR_SYSCALLBUF_ABI_VERSION). The
 *   recorder (and replayer) answers 0 when it accepts the buffer, and
 *   -ENOSYS when buffering is off; the library then traces everything.
 * - Buffers are per thread-local state. The main thread registers from the
 *   library's constructor, any other thread on its first buffered call. A
 *   fork child (no CLONE_VM) keeps its copy of the parent's buffer at the
 *   same address. A CLONE_VM child made without CLONE_SETTLS (a vfork
 *   child, or clone(CLONE_VM|SIGCHLD) as stress-ng's vm-rw makes) runs on
 *   its parent's thread-local state, so the library in it goes on with the
 *   parent's very buffer: mrr counts that buffer as the child's too, and
 *   since tasks sharing memory run one at a time at record and every task
 *   flushes before each of its traced events, each task's records are
 *   flushed as its own. A CLONE_VM child with CLONE_SETTLS (a thread) has
 *   new thread-local state and no buffer until it registers its own
 *   (mrr_sbuf_clone_inherits). After execve the new image registers afresh.
 * - Each buffered call appends one record at hdr.used (8-byte aligned) and
 *   then advances hdr.used. While it does so hdr.busy is 1: mrr never
 *   flushes a busy buffer.
 * - Flush: before every traced event of the task, mrr reads records
 *   [0, hdr.used), writes them to the trace as one MRR_EV_BUFFER event, and
 *   sets hdr.used to 0. Only then: a stop that writes no event of the task
 *   (a signal held for later) flushes nothing, so an event of the task
 *   follows each flush before the next one (the replay loads a flush while
 *   the task stands after its previous event), and a wrapper is not
 *   flushed under between its look at hdr.used and its record. When a call
 *   leaves hdr.used above MRR_SYSCALLBUF_FLUSH_AT, the library itself makes
 *   the traced syscall MRR_SYSCALL_FLUSH right after committing the record;
 *   it is recorded and replayed like any traced syscall (result 0). The
 *   library never resets hdr.used itself: only mrr does.
 * - The library never makes a traced syscall while hdr.busy is 1, and mrr
 *   delivers asynchronous signals only after traced syscalls, so a flush
 *   is refused only if a synchronous signal's handler makes a traced call.
 * - Replay: mrr writes the records of each MRR_EV_BUFFER event into the
 *   buffer at offset 0, sets hdr.used = 0 and hdr.avail to their length,
 *   while the task is stopped right after its previous event. hdr.replaying
 *   is 1. A wrapper takes the next record when one is there: it checks
 *   that nr and the key arguments match, copies the recorded bytes out, and
 *   returns the recorded result, without making the syscall (except
 *   madvise and mprotect: see below). With no record left, the call takes the
 * traced path, as it did at record (every traced syscall flushed the buffer, so
 *   a call that was traced at record always finds the buffer consumed).
 *   On a mismatch (malformed record, other nr or args[0..2], or a data_len
 *   the call cannot have written) the library makes the traced syscall
 *   MRR_SYSCALL_DESYNC(record offset, nr of the call the program made) so
 *   mrr reports the divergence, then takes the traced path.
 * - madvise(MADV_DONTNEED) is buffered only when an untraced
 *   madvise(MADV_COLD) probe of the same range succeeded: then no page in the
 *   range is locked, PFN-mapped or hugetlb, and re-running the DONTNEED at
 *   replay drops exactly the same pages. mrr sets hdr.no_probe once the
 *   program installs its own seccomp filter (which would see the probe);
 *   from then on madvise is traced, and, if that filter may answer with a
 *   signal or a kill, every call (MRR_SYSCALLBUF_NO_BUFFER).
 * - mprotect with only PROT_READ/PROT_WRITE bits (not on mrr's page, not
 *   on the buffer itself) is buffered. The recorder checks each flush's
 *   successful mprotects against the task's memory map (the last call for
 *   each page must be what the map shows) and ends the recording when they
 *   disagree. At replay the library makes the same mprotect again,
 *   untraced; a result other than the recorded one is reported with
 *   MRR_SYSCALL_DESYNC(offset, nr, 1).
 * - A signal that reaches a task outside a syscall is held back by mrr
 *   until the task's next traced syscall. So that a program busy with
 *   buffered calls still gets it soon, mrr sets hdr.trace_next at record;
 *   the next wrapper clears it and takes the traced path. At replay that
 *   call finds no record, so it takes the traced path there too.
 * - A buffered read, pread or readv of a regular file of size 0 (a /proc
 *   file) whose data holds a line of a status file that mrr mends
 *   ("NoNewPrivs:", "Seccomp:", "Seccomp_filters:"; status_scan.h) gets
 *   MRR_SYSCALLBUF_REC_MEND in its record's pad and makes the traced
 *   MRR_SYSCALL_FLUSH right after committing the record, so that mrr mends
 *   the bytes in the record and the program's memory before the program
 *   uses them. The replay makes the same flush after a record with the
 *   flag.
 * - A task that blocks inside a buffered call at record (the kernel holds
 *   its untraced call until another recorded task acts: a fanotify
 *   permission event, FUSE, a drained pipe) gives up its group's slot
 *   there: mrr writes the records committed before that call (the buffer
 *   is busy, so mrr remembers how far it wrote and leaves hdr.used alone)
 *   and an MRR_EV_SCHED of reason MRR_SCHED_BUFFERED, and stops the task
 *   where the untraced call returns, by itself (a breakpoint counter), not
 *   through the library. At replay the task runs through those records;
 *   its call finds none and makes the traced call, where mrr holds it. When
 *   the task's turn comes back, mrr loads its next records and answers
 *   that traced call with MRR_SYSCALLBUF_RETRY: the library starts the
 *   call again and takes its record.
 * - The recorded program can write anywhere in the buffer. mrr treats it as
 *   untrusted: every size, offset and count is checked, and a corrupted
 *   buffer ends the recording with an error.
 */
#ifndef MRR_SYSCALLBUF_ABI_H
#define MRR_SYSCALLBUF_ABI_H

#include <stdint.h>

/* 2: buffered mprotect, and the MRR_SYSCALLBUF_REC_MEND flag (a read of a
 * /proc status file, flushed at once). 3: a replayed call without a record
 * takes MRR_SYSCALLBUF_RETRY from its traced call as "look again" (a task
 * that blocked inside a buffered call at record). The replay's library
 * must make the same choices as the recording's, so a replay refuses
 * another version. */
#define MRR_SYSCALLBUF_ABI_VERSION 3

/* What mrr's replay answers the traced call of a wrapper that found no
 * record, when the task blocked inside that buffered call at record and
 * gave up its slot there (MRR_SCHED_BUFFERED): the records of the call
 * and after are loaded now, and the wrapper starts again. No kernel
 * returns this value (-4095). */
#define MRR_SYSCALLBUF_RETRY (-4095L)

/* Syscall numbers no kernel uses, intercepted by mrr at their seccomp stop. */
#define MRR_SYSCALL_REGISTER 0x6d7200 /* ("mr") */
#define MRR_SYSCALL_FLUSH    0x6d7201
#define MRR_SYSCALL_DESYNC   0x6d7202

/* The sixth argument register (r9) of every untraced syscall holds this
 * token: mrr's seccomp filter lets a call from the page's untraced
 * instruction run untraced only with it, so that a program that merely
 * jumps there is still traced (and refused). The program can read the
 * token here, so it stops mistakes, not a program that studies mrr. */
#define MRR_SYSCALLBUF_TOKEN 0x6b6f74726d6d7262ull

#define MRR_SYSCALLBUF_MAGIC	0x4642524du /* "MRBF" */
#define MRR_SYSCALLBUF_SIZE	(1u << 20)  /* bytes, header included */
#define MRR_SYSCALLBUF_FLUSH_AT (MRR_SYSCALLBUF_SIZE / 2)
/* Largest data one record may carry; bigger calls are traced. */
#define MRR_SYSCALLBUF_MAX_DATA (MRR_SYSCALLBUF_SIZE / 4)

struct mrr_syscallbuf_hdr {
	uint32_t magic;	     /* MRR_SYSCALLBUF_MAGIC */
	uint32_t abi;	     /* MRR_SYSCALLBUF_ABI_VERSION */
	uint32_t used;	     /* bytes of records after the header */
	uint32_t avail;	     /* replay: bytes of records loaded */
	uint32_t busy;	     /* a wrapper is between reserve and commit */
	uint32_t replaying;  /* set by mrr at replay */
	uint32_t no_probe;   /* set by mrr: MRR_SYSCALLBUF_NO_* bits */
	uint32_t trace_next; /* set by mrr: trace the next call */
};
/* hdr.no_probe bits. NO_PROBE: do not buffer madvise (a filter of the
 * program's would see the probe). NO_BUFFER: buffer nothing, because a
 * filter of the program's may answer a call with a signal or a kill, which
 * a replay that makes no syscall could not repeat. mrr sets them when the
 * program installs a filter, and at registration when it has some. */
#define MRR_SYSCALLBUF_NO_PROBE	 1u
#define MRR_SYSCALLBUF_NO_BUFFER 2u

/* Whether a child made by clone/clone3 with these flags (0 for fork and
 * vfork) goes on with its parent's buffer: it does unless it shares the
 * parent's memory with thread-local state of its own (CLONE_SETTLS), the
 * same rule at record and at replay. */
static inline int mrr_sbuf_clone_inherits(uint64_t clone_flags)
{
	const uint64_t vm = 0x100, settls = 0x80000; /* CLONE_VM, _SETTLS */

	return !(clone_flags & vm) || !(clone_flags & settls);
}

/* Records follow the header, up to MRR_SYSCALLBUF_SIZE. */

/* mrr_syscallbuf_rec.pad: the record's data may need mending (protocol
 * above), and the call flushed right after it. */
#define MRR_SYSCALLBUF_REC_MEND 1u

/* One buffered call. size covers the header and data, rounded up to 8.
 * Which calls are buffered and what data each carries: calls.h. */
struct mrr_syscallbuf_rec {
	uint32_t size;
	uint32_t nr;	   /* syscall number */
	int64_t result;	   /* what the call returned (-errno on failure) */
	uint64_t args[3];  /* first three arguments, for checking at replay */
	uint32_t data_len; /* bytes the kernel wrote, copied after the header */
	uint32_t pad;	   /* 0, or MRR_SYSCALLBUF_REC_MEND */
			   /* uint8_t data[data_len]; */
};

#endif
