/* The preload library's engine: per-thread registration and sb_run(), the
 * one shape every buffered wrapper follows (see preload.h and abi.h).
 *
 * Built -nostdlib: the only symbol taken from elsewhere is libc's
 * __errno_location, and only to report errors the way libc does. */
#include "syscallbuf/preload.h"
#include "syscallbuf/status_scan.h"

#include "core/tracee.h"
#include "syscallbuf/abi.h"
#include "syscallbuf/calls.h"
#include "syscallbuf/raw.h"

#include <asm/stat.h>
#include <asm/unistd.h>
#include <linux/errno.h>
#include <asm/ioctls.h>
#include <linux/fcntl.h>
#include <linux/mman.h>
#include <stdint.h>

_Static_assert(sizeof(struct stat) == MRR_SB_STAT_SIZE, "struct stat size");
_Static_assert(sizeof(struct mrr_syscallbuf_rec) % 8 == 0,
	       "records must stay 8-aligned");

/* Bytes of records a buffer can hold after its header. */
#define SB_CAPACITY (MRR_SYSCALLBUF_SIZE - sizeof(struct mrr_syscallbuf_hdr))

#define SB_BARRIER() __asm__ volatile("" ::: "memory")

/* Weak: the library must load even into a program without libc's errno
 * (it then only loses errno, never crashes). */
extern int *__errno_location(void) __attribute__((weak));

enum sb_state {
	SB_UNKNOWN = 0, /* this thread has not tried to register yet */
	SB_REGISTERING, /* inside sb_init_thread (a signal handler may nest) */
	SB_ON,
	SB_OFF, /* not under mrr, or mrr said no: everything is traced */
};

/* Initial-exec TLS needs no call into libc or ld.so at access time. A new
 * thread starts from these zeroes and registers its own buffer; a fork
 * child keeps its parent's values, and its copy of the buffer. */
static __thread volatile struct mrr_syscallbuf_hdr *sb_hdr
	__attribute__((tls_model("initial-exec")));
static __thread enum sb_state sb_state
	__attribute__((tls_model("initial-exec")));

/* The compiler may emit memcpy/memset calls for struct copies; these keep
 * them inside the library (hidden, so libc's are not replaced). */
__attribute__((visibility("hidden"))) void *memcpy(void *dst, const void *src,
						   size_t n)
{
	void *ret = dst;

	__asm__ volatile("rep movsb"
			 : "+D"(dst), "+S"(src), "+c"(n)
			 :
			 : "memory");
	return ret;
}

__attribute__((visibility("hidden"))) void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;

	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
	return ret;
}

long sb_ret(long raw)
{
	if ((unsigned long)raw > -4096ul) {
		if (__errno_location)
			*__errno_location() = (int)-raw;
		return -1;
	}
	return raw;
}

static long sb_call_traced(long nr, long a0, long a1, long a2)
{
	return sb_traced_syscall(nr, a0, a1, a2, 0, 0, 0);
}

long sb_traced(const struct sb_call *c)
{
	return sb_traced_syscall(c->nr, c->args[0], c->args[1], c->args[2],
				 c->args[3], c->args[4], c->args[5]);
}

static long sb_untraced(const struct sb_call *c)
{
	return sb_untraced_syscall(c->nr, c->args[0], c->args[1], c->args[2],
				   c->args[3], c->args[4], c->args[5]);
}

void sb_init_thread(void)
{
	struct mrr_syscallbuf_hdr *hdr;
	long addr, ret;

	if (sb_state != SB_UNKNOWN)
		return;
	sb_state = SB_REGISTERING;
	/* Traced, so that the replay maps the buffer at the same address. */
	addr = sb_traced_syscall(__NR_mmap, 0, MRR_SYSCALLBUF_SIZE,
				 PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((unsigned long)addr > -4096ul) {
		sb_state = SB_OFF;
		return;
	}
	hdr = (struct mrr_syscallbuf_hdr *)addr;
	hdr->magic = MRR_SYSCALLBUF_MAGIC;
	hdr->abi = MRR_SYSCALLBUF_ABI_VERSION;
	SB_BARRIER();
	ret = sb_call_traced(MRR_SYSCALL_REGISTER, addr,
			     MRR_SYSCALLBUF_ABI_VERSION, 0);
	if (ret != 0) {
		sb_call_traced(__NR_munmap, addr, MRR_SYSCALLBUF_SIZE, 0);
		sb_state = SB_OFF;
		return;
	}
	sb_hdr = hdr;
	sb_state = SB_ON;
}

/* Runs before main, and possibly after other libraries' constructors that
 * already called a wrapper (which then registered lazily). */
__attribute__((constructor)) static void sb_init(void)
{
	sb_init_thread();
}

static volatile struct mrr_syscallbuf_hdr *sb_buffer(void)
{
	if (sb_state == SB_UNKNOWN)
		sb_init_thread();
	return sb_state == SB_ON ? sb_hdr : 0;
}

int sb_buffering(void)
{
	volatile struct mrr_syscallbuf_hdr *hdr = sb_buffer();

	return hdr && !hdr->busy;
}

static struct mrr_syscallbuf_rec *
sb_rec_at(volatile struct mrr_syscallbuf_hdr *hdr, uint32_t off)
{
	return (struct mrr_syscallbuf_rec *)((char *)(hdr + 1) + off);
}

static uint32_t sb_align8(size_t n)
{
	return (uint32_t)((n + 7) & ~(size_t)7);
}

/* Flushes when the buffer is past half full. Called with busy clear, so
 * mrr accepts the flush at the traced syscall's stop and resets used
 * itself. The library leaves used alone: at replay, mrr loads the next
 * records after this syscall only if there are any, and a reset here would
 * turn the consumed ones into fresh ones. */
static void sb_maybe_flush(volatile struct mrr_syscallbuf_hdr *hdr, int now)
{
	if (now || hdr->used > MRR_SYSCALLBUF_FLUSH_AT)
		sb_call_traced(MRR_SYSCALL_FLUSH, 0, 0, 0);
}

/* File types sb_fd_type tells apart. */
#define SB_FD_OTHER 0
#define SB_FD_REG   1
#define SB_FD_FIFO  2

/* pseudo (when not NULL): set to 1 for a regular file of size 0, as
 * /proc files are, that is, a file whose bytes the kernel makes up. */
static int sb_fd_type(long fd, int *pseudo)
{
	struct stat st;

	if (sb_untraced_syscall(__NR_fstat, fd, (long)&st, 0, 0, 0, 0) != 0)
		return SB_FD_OTHER;
	switch (st.st_mode & 0170000) {
	case 0100000:
		if (pseudo)
			*pseudo = st.st_size == 0;
		return SB_FD_REG;
	case 0010000:
		return SB_FD_FIFO;
	default:
		return SB_FD_OTHER;
	}
}

/* Whether the pipe fd holds data now, so that a read of it returns at once
 * (FIONREAD; nothing, or an error, and the read is traced). A reader in
 * another process that empties the pipe between the look and the read
 * makes the read wait untraced until more comes: signals for this task then
 * wait too. (preadv2's RWF_NOWAIT would close that gap, but its flags are
 * the sixth argument, which carries mrr's token.) */
static int sb_pipe_has_data(long fd)
{
	int n = 0;

	return sb_untraced_syscall(__NR_ioctl, fd, FIONREAD, (long)&n, 0, 0,
				   0) == 0 &&
	       n > 0;
}

/* Whether an openat may run untraced. It must not block (a FIFO without a
 * writer would, and mrr delivers signals only at traced calls), nor open a
 * device, whose open may do anything: so the path must be a regular file,
 * or nothing at all (then the open fails, or O_CREAT makes a regular file).
 * O_TRUNC stays traced (it changes a file some process may map), and so do
 * O_PATH and O_TMPFILE. */
static int sb_open_ok(const struct sb_call *c)
{
	long flags = c->args[2];
	struct stat st;

	if (flags & (O_TRUNC | O_PATH | __O_TMPFILE))
		return 0;
	if (sb_untraced_syscall(
		    __NR_newfstatat, c->args[0], c->args[1], (long)&st,
		    (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0, 0, 0) != 0)
		return 1;
	return (st.st_mode & 0170000) == 0100000;
}

/* The open itself, with O_NONBLOCK added so that a FIFO swapped in after
 * sb_open_ok looked cannot block it; the program's own status flags are
 * put back at once (O_ASYNC, which open ignores, stays off). */
static long sb_open_untraced(const struct sb_call *c)
{
	long flags = c->args[2];
	long fd = sb_untraced_syscall(__NR_openat, c->args[0], c->args[1],
				      flags | O_NONBLOCK, c->args[3], 0, 0);

	if (fd >= 0 && !(flags & O_NONBLOCK))
		sb_untraced_syscall(__NR_fcntl, fd, F_SETFL, flags & ~FASYNC, 0,
				    0, 0);
	return fd;
}

/* How many bytes the kernel wrote for result res, per the call's rule. */
static size_t sb_data_len(const struct sb_call *c, long res)
{
	switch (c->rule) {
	case MRR_SB_RESULT:
		if (res <= 0)
			return 0;
		return (size_t)res < c->out_len ? (size_t)res : c->out_len;
	case MRR_SB_FIXED:
		return res >= 0 && c->out ? c->out_len : 0;
	default:
		return 0;
	}
}

/* Copies len bytes between the call's output (buffer or vectors) and the
 * record's data, in the direction to_rec says. */
static void sb_move_data(const struct sb_call *c, uint8_t *data, size_t len,
			 int to_rec)
{
	if (!c->iov) {
		if (to_rec)
			memcpy(data, c->out, len);
		else
			memcpy(c->out, data, len);
		return;
	}
	for (long i = 0; len > 0 && i < c->args[2]; i++) {
		size_t n = c->iov[i].len < len ? c->iov[i].len : len;

		if (to_rec)
			memcpy(data, c->iov[i].base, n);
		else
			memcpy(c->iov[i].base, data, n);
		data += n;
		len -= n;
	}
}

static int sb_overlaps_mrr_page(unsigned long start, unsigned long len)
{
	return len && start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
	       start + len > MRR_PAGE_ADDR;
}

static long sb_record(volatile struct mrr_syscallbuf_hdr *hdr,
		      const struct sb_call *c, uint32_t used)
{
	struct mrr_syscallbuf_rec *rec;
	size_t len;
	long res;
	int mend, pseudo = 0;

	/* Decisions only the record can make; each one that says no takes
	 * the traced path, so the replay finds no record here either. */
	if (c->flags & SB_REGULAR_FD) {
		int type = sb_fd_type(c->args[0], &pseudo);

		if (type == SB_FD_FIFO && (c->flags & SB_PIPE_NOWAIT)) {
			if (!sb_pipe_has_data(c->args[0]))
				return sb_traced(c);
		} else if (type != SB_FD_REG) {
			return sb_traced(c);
		}
	}
	if ((c->flags & SB_OPEN) && !sb_open_ok(c))
		return sb_traced(c);
	if (c->flags & SB_MPROTECT) {
		unsigned long buf = (unsigned long)hdr;

		/* mrr's page (refused there), and this buffer, which a
		 * read-only protection would make the next record fault */
		if (sb_overlaps_mrr_page(c->args[0], c->args[1]) ||
		    ((unsigned long)c->args[1] &&
		     (unsigned long)c->args[0] < buf + MRR_SYSCALLBUF_SIZE &&
		     (unsigned long)c->args[0] + (unsigned long)c->args[1] >
			     buf))
			return sb_traced(c);
	}
	if (c->flags & SB_MADVISE) {
		/* mrr's page: the traced call lets mrr refuse it */
		if (sb_overlaps_mrr_page(c->args[0], c->args[1]))
			return sb_traced(c);
		/* MADV_COLD fails wherever DONTNEED could keep or skip pages
		 * (locked, PFN-mapped or hugetlb VMAs, holes). The probe is
		 * hidden from mrr's filter and, while no_probe is 0, from any
		 * filter of the program's. */
		if (hdr->no_probe ||
		    sb_untraced_syscall(__NR_madvise, c->args[0], c->args[1],
					MADV_COLD, 0, 0, 0) != 0)
			return sb_traced(c);
	}

	hdr->busy = 1;
	SB_BARRIER();
	if (c->flags & SB_OPEN) {
		res = sb_open_untraced(c);
		/* a lease another process holds: the program's open waits
		 * for it to be given up, which only the traced call may do
		 * (no record, so the replay takes the traced path too) */
		if (res == -EWOULDBLOCK && !(c->args[2] & O_NONBLOCK)) {
			SB_BARRIER();
			hdr->busy = 0;
			SB_BARRIER();
			return sb_traced(c);
		}
	} else {
		res = sb_untraced(c);
	}
	len = sb_data_len(c, res);
	rec = sb_rec_at(hdr, used);
	rec->size = sb_align8(sizeof(*rec) + len);
	rec->nr = (uint32_t)c->nr;
	rec->result = res;
	rec->args[0] = (uint64_t)c->args[0];
	rec->args[1] = (uint64_t)c->args[1];
	rec->args[2] = (uint64_t)c->args[2];
	rec->data_len = (uint32_t)len;
	rec->pad = 0;
	sb_move_data(c, (uint8_t *)(rec + 1), len, 1);
	/* Data mrr mends (abi.h): the record says so, for the replay. */
	if ((c->flags & SB_STATUS) && len &&
	    (pseudo || !(c->flags & SB_REGULAR_FD)) &&
	    mrr_status_has_token((const uint8_t *)(rec + 1), len)) {
		/* pread: the scan first, as a syscall costs more */
		if (!(c->flags & SB_REGULAR_FD))
			sb_fd_type(c->args[0], &pseudo);
		if (pseudo)
			rec->pad = MRR_SYSCALLBUF_REC_MEND;
	}
	mend = rec->pad & MRR_SYSCALLBUF_REC_MEND;
	SB_BARRIER();
	hdr->used = used + rec->size;
	hdr->busy = 0;
	SB_BARRIER();
	sb_maybe_flush(hdr, mend);
	return res;
}

/* Whether the record at used, of avail loaded bytes, is well-formed and
 * is this very call. */
static int sb_rec_matches(const struct mrr_syscallbuf_rec *rec, uint32_t used,
			  uint32_t avail, const struct sb_call *c)
{
	uint32_t left = avail - used;

	if (left < sizeof(*rec) || rec->size < sizeof(*rec) ||
	    rec->size > left || rec->size % 8 != 0 ||
	    rec->data_len > rec->size - sizeof(*rec))
		return 0;
	if (rec->nr != (uint32_t)c->nr ||
	    rec->args[0] != (uint64_t)c->args[0] ||
	    rec->args[1] != (uint64_t)c->args[1] ||
	    rec->args[2] != (uint64_t)c->args[2])
		return 0;
	return rec->data_len == sb_data_len(c, rec->result);
}

static long sb_replay(volatile struct mrr_syscallbuf_hdr *hdr,
		      const struct sb_call *c, uint32_t used)
{
	const struct mrr_syscallbuf_rec *rec;
	uint32_t avail = hdr->avail;
	long res;
	int mend;

	if (avail > SB_CAPACITY)
		avail = SB_CAPACITY;
	/* No record: at record this call was traced (every traced syscall
	 * flushed the buffer before it), so it is traced now too; or it
	 * blocked there and mrr held it at this traced call, until it loaded
	 * the records that came after (abi.h): the caller looks again. */
	if (used >= avail)
		return sb_traced(c);
	rec = sb_rec_at(hdr, used);
	if (!sb_rec_matches(rec, used, avail, c)) {
		sb_call_traced(MRR_SYSCALL_DESYNC, used, c->nr, 0);
		return sb_traced(c);
	}

	hdr->busy = 1;
	SB_BARRIER();
	sb_move_data(c, (uint8_t *)(rec + 1), rec->data_len, 0);
	/* The probe succeeded at record, so the range held no locked page:
	 * dropping it again now drops exactly the same pages. */
	if (c->flags & SB_MADVISE)
		sb_untraced(c);
	res = rec->result;
	/* mprotect runs again, on the same map as at record: it must give
	 * the same result, or the map is not the recorded one (DESYNC with
	 * its third argument 1 says so). */
	if ((c->flags & SB_MPROTECT) && sb_untraced(c) != res) {
		SB_BARRIER();
		hdr->busy = 0;
		SB_BARRIER();
		sb_call_traced(MRR_SYSCALL_DESYNC, used, c->nr, 1);
		return res;
	}
	mend = rec->pad & MRR_SYSCALLBUF_REC_MEND;
	SB_BARRIER();
	hdr->used = used + rec->size;
	hdr->busy = 0;
	SB_BARRIER();
	sb_maybe_flush(hdr, mend);
	return res;
}

static long sb_run_once(const struct sb_call *c);

long sb_run_body(const struct sb_call *c)
{
	long res;

	/* Only mrr's replay answers MRR_SYSCALLBUF_RETRY, and only to the
	 * traced call of a replayed wrapper without a record (abi.h). */
	while ((res = sb_run_once(c)) == MRR_SYSCALLBUF_RETRY && sb_hdr &&
	       sb_hdr->replaying)
		;
	return res;
}

static long sb_run_once(const struct sb_call *c)
{
	volatile struct mrr_syscallbuf_hdr *hdr = sb_buffer();
	uint32_t used;

	/* busy: a signal handler interrupted a wrapper of this thread. */
	if (!hdr || hdr->busy || c->out_len > MRR_SYSCALLBUF_MAX_DATA ||
	    (hdr->no_probe & MRR_SYSCALLBUF_NO_BUFFER))
		return sb_traced(c);
	/* mrr holds a signal for this task until a traced syscall */
	if (hdr->trace_next) {
		hdr->trace_next = 0;
		return sb_traced(c);
	}
	/* The program can scribble over used; never write past the end. */
	used = hdr->used;
	if (used > SB_CAPACITY || sb_align8(sizeof(struct mrr_syscallbuf_rec) +
					    c->out_len) > SB_CAPACITY - used)
		return sb_traced(c);
	if (hdr->replaying)
		return sb_replay(hdr, c, used);
	return sb_record(hdr, c, used);
}
