/* Kind-specific event payloads (the `extra` bytes of struct mrr_event), as
 * laid out on disk. Normative description: trace-format/FORMAT.md, section
 * "Event payloads". All integers little-endian; structs have no implicit
 * padding. Readers must check extra_len before using any of these.
 */
#ifndef MRR_CORE_EVENTS_H
#define MRR_CORE_EVENTS_H

#include "mrr/trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MRR_NREGS 27 /* struct user_regs_struct, as u64 words */

/* MRR_EV_EXEC: the task's registers right after the new image started, the
 * stored copies of the executable and its interpreter, then the path the
 * program passed to execve (NUL-terminated, up to extra_len). The event's
 * writes hold the initial stack, from rsp to the top of the stack. */
struct mrr_exec_extra {
	uint64_t regs[MRR_NREGS];
	char exe_file[64];    /* stored name, NUL-terminated */
	char interp_file[64]; /* stored name or "" */
			      /* char path[]; */
};

/* MRR_EV_SIGNAL: how the signal reached the task, then its siginfo. */
enum mrr_signal_how {
	MRR_SIG_SYNC = 1, /* raised by an instruction (fault, trap) */
	MRR_SIG_AT_SYSCALL =
		2,	   /* delivered right after the task's last syscall */
	MRR_SIG_FATAL = 3, /* killed the task where it stood */
	MRR_SIG_AT_POINT = 4, /* delivered in user code, at the point of the
			       * task's MRR_EV_PREEMPT event just before it */
};
struct mrr_signal_extra {
	uint32_t how; /* enum mrr_signal_how */
	uint32_t pad;
	uint8_t siginfo[128];
};

/* MRR_EV_PREEMPT (format version 2): the recorder stopped the task in user
 * code, at rip == ev->ip, to preempt it or to deliver a signal there.
 * nr: enum mrr_preempt_reason. args[0]: the count N, the point is the N-th
 * execution of the instruction at ip since the task's previous event; 0
 * means not counted: the point is the first execution of ip whose registers
 * and stack hash match. args[1], args[2]: start and length of the stack
 * bytes hashed (MRR_PREEMPT_STACK_BELOW bytes under rsp, the red zone, up
 * to MRR_PREEMPT_STACK_ABOVE bytes from rsp; shorter where memory ends;
 * from rsp without the red zone after calls into the syscall buffer).
 * args[3]: the registers compared (bit i: word i of user_regs_struct).
 * args[4], args[5]: end and XXH64 of the stack bytes [rsp, args[4]) (0, 0:
 * none), which a search by registers also requires to match. */
enum mrr_preempt_reason {
	MRR_PREEMPT_TIMESLICE = 1, /* ran too long without an event */
	MRR_PREEMPT_SIGNAL = 2,	   /* a MRR_SIG_AT_POINT signal follows */
};
#define MRR_PREEMPT_STACK_BELOW 128
#define MRR_PREEMPT_STACK_ABOVE 128
struct mrr_preempt_extra {
	uint64_t regs[MRR_NREGS]; /* struct user_regs_struct at the point */
	uint64_t stack_hash;	  /* XXH64, seed 0, of the hashed bytes */
};

/* MRR_EV_SYSCALL for madvise and process_madvise on the program's own
 * memory: the pages the kernel dropped, merged. */
enum mrr_drop_precision {
	MRR_DROP_PFN = 1,     /* from PFN changes: exact */
	MRR_DROP_PRESENT = 2, /* from present/swapped bits only */
};
enum mrr_drop_fill {
	MRR_FILL_ZERO = 1, /* private anonymous: reads as zeroes */
	MRR_FILL_FILE = 2, /* private file mapping: reads as the file */
	MRR_FILL_KEEP = 3, /* shared mapping: content unchanged */
	MRR_FILL_HOLE = 4, /* MADV_REMOVE punched a hole: zeroes */
};
struct mrr_drop_range {
	uint64_t start;
	uint64_t end;
	uint32_t fill; /* enum mrr_drop_fill */
	uint32_t pad;
};
/* MADV_FREE recorded as an immediate drop. */
#define MRR_MADV_FORCED_DROP 0x1u
struct mrr_madvise_extra {
	uint32_t precision; /* enum mrr_drop_precision */
	uint32_t nranges;
	uint32_t nlocked; /* locked VMAs met in the range (failed calls only) */
	uint32_t flags;	  /* MRR_MADV_* */
			  /* struct mrr_drop_range ranges[nranges]; */
			  /* struct mrr_locked_range locked[nlocked]; */
};
struct mrr_locked_range {
	uint64_t start;
	uint64_t end;
};

/* MRR_EV_SYSCALL for mmap of a file: which stored file the mapping came
 * from, so replay maps the same bytes. */
struct mrr_mmap_extra {
	char file[64]; /* stored name */
	uint64_t size; /* file size at record */
	/* MRR_MMAP_SHARED for MAP_SHARED, with MRR_MMAP_NO_WRITE when the
	 * mapping could never be made writable (a read-only fd, or a memfd
	 * sealed against writes): mprotect(PROT_WRITE) fails on it */
	uint32_t shared;
	/* Which file at record, 1-based, the same for every mapping of one
	 * file (inode) whatever its content then; 0: not known (older
	 * traces). Replay backs all mappings of one ident with one copy. */
	uint32_t ident;
};

#define MRR_MMAP_SHARED	  1u
#define MRR_MMAP_NO_WRITE 2u

/* MRR_EV_RDTSC: nr is 0 for rdtsc, 1 for rdtscp; args[0] is the counter,
 * args[1] the TSC_AUX value (rdtscp), args[2] the instruction length. */

/* MRR_EV_EXIT: result is the wait status (as from waitpid). */

/* MRR_EV_BACKTRACE (record --backtrace): the call stack of the task at its
 * previous event, as text: one frame per line, "0xADDR SYMBOL+0xOFF (FILE)".
 * Replay ignores it. */

/* MRR_EV_SYSCALL interrupted by a signal (result -ERESTARTSYS..
 * -ERESTART_RESTARTBLOCK): the signals pending at the syscall's exit, the
 * one about to be delivered among them. */
struct mrr_interrupted_extra {
	uint64_t pending; /* bit N-1 set: signal N pending */
};

/* MRR_EV_SYSCALL of shmat and shmdt: the size of the attached segment's
 * mapping. shmat's writes hold the segment's contents at attach time. */
struct mrr_shm_extra {
	uint64_t size;
};

/* MRR_EV_SYSCALL of the write family that wrote into a file some recorded
 * process had mapped: replay writes the same bytes into its copy. Also
 * ftruncate and fallocate of such a file (offset: its size after). */
struct mrr_file_write_extra {
	char file[64];	 /* stored name of the mapped file */
	uint64_t offset; /* file offset the bytes went to */
	/* The mapped file's ident (struct mrr_mmap_extra): files that held
	 * the same bytes share a stored name, and only this tells them
	 * apart. 0: not known. Older traces end before it
	 * (MRR_FILE_WRITE_EXTRA_OLD bytes). */
	uint32_t ident;
	uint32_t pad;
};
#define MRR_FILE_WRITE_EXTRA_OLD 72u

/* A write-family event's extra without its trailing digest
 * (MRR_EVF_DIGEST): the length of the kind-specific part before it. */
static inline uint32_t mrr_event_extra_body_len(const struct mrr_event *ev)
{
	if ((ev->flags & MRR_EVF_DIGEST) && ev->extra_len >= 8)
		return ev->extra_len - 8;
	return ev->extra_len;
}

/* The digest of the bytes a write-family event's call took (MRR_EVF_DIGEST)
 * into *out. Returns false when the event carries none. */
static inline bool mrr_event_digest_get(const struct mrr_event *ev,
					uint64_t *out)
{
	const unsigned char *p;
	uint64_t v = 0;
	int i;

	if (!(ev->flags & MRR_EVF_DIGEST) || ev->extra_len < 8)
		return false;
	p = (const unsigned char *)ev->extra + ev->extra_len - 8;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	*out = v;
	return true;
}

/* The file write extra (either length) into *out, with ident 0 for the
 * older one; false when extra is neither or its name has no NUL. */
static inline bool mrr_file_write_extra_get(const void *extra, uint32_t len,
					    struct mrr_file_write_extra *out)
{
	if (len != sizeof(*out) && len != MRR_FILE_WRITE_EXTRA_OLD)
		return false;
	memset(out, 0, sizeof(*out));
	memcpy(out, extra, len);
	return memchr(out->file, 0, sizeof(out->file)) != NULL;
}

/* MRR_EV_SYSCALL of clone and clone3 that created a task (result > 0):
 * the clone flags the call used (clone3's live in the program's memory),
 * so that readers know a thread (CLONE_THREAD) from a process without
 * the program's memory. Older traces have no extra there. */
struct mrr_clone_extra {
	uint64_t flags;
};

/* MRR_EV_SYSCALL of process_vm_writev into a recorded process (target is
 * its recorded pid): nranges pairs of u64 (remote address, length), then
 * the bytes written there, in order (the sum of the lengths, which is the
 * call's result). Replay writes them into that process at this event. A
 * write of more than MRR_VM_WRITE_MAX bytes has nranges 0 and nothing
 * after it: the event's memory writes hold its ranges and bytes, at the
 * target's addresses. */
struct mrr_vm_write_extra {
	int32_t target;
	uint32_t nranges;
};
#define MRR_VM_WRITE_MAX (15u << 20) /* bytes; extra stays under 2^24 */

#endif
