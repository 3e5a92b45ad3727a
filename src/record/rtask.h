/* Recorder-private state: the recording session and its tasks. */
#ifndef MRR_RECORD_RTASK_H
#define MRR_RECORD_RTASK_H

#include "core/bpcount.h"
#include "core/page_around.h"
#include "core/tracee.h"
#include "mrr/trace.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>
#include <time.h>

struct filecache;
struct mrr_pagemap;
struct tsc_site;
struct mrr_page_snapshot;
struct rec_preempt;
struct spin_gates;
struct rec_vptrace;
struct rec_vwait;

/* Memory captured for one event. */
struct capture {
	struct mrr_mem_write writes[64];
	uint32_t nwrites;
	uint8_t *data; /* one arena for all writes' bytes */
	size_t used, cap;
	uint8_t *extra;
	size_t extra_len, extra_cap;
	/* an address of memfd_secret memory the kernel wrote and mrr could
	 * not read back (capture_add), or 0: the event cannot be recorded */
	uint64_t secret_addr;
	/* its handler stopped the recording at this event (rec_stop): the
	 * event is not written */
	bool refused;
};

/* Tasks sharing one address space: one of them runs at a time (threads.c). */
struct rgroup {
	struct rtask *runner; /* holds the slot, or NULL */
	int nmembers;
	uint64_t since_ms;     /* when the runner took the slot */
	uint64_t last_stop_ms; /* the runner's last stop */
	/* spin probes of the runner (spin.h): the next one not before
	 * probe_at_ms; probe_wait_ms grows while the runner does not spin */
	uint64_t probe_at_ms, probe_wait_ms;
	/* the runner, in user code without a stop for a while as others
	 * wait, was asked to trace its next buffered call and gives up the
	 * slot at that call (threads.c); when */
	bool yield_asked;
	uint64_t yield_asked_ms;
};

struct rtask {
	struct tracee t;
	struct rtask *next;
	struct rgroup *grp; /* never NULL once added */
	pid_t tgid;	    /* its thread group (process) id */
	/* a stop not handled yet: it waits for the group's slot */
	bool parked;
	int parked_status;
	uint64_t park_order;
	bool blocked; /* inside a syscall that may wait, without the slot */
	/* parked at a preemption point just recorded (spin.h), in mrr's own
	 * stop: it goes on with PTRACE_CONT when it gets the slot back */
	bool preempted;
	/* its stops since it last took its group's slot (threads.c) */
	unsigned slice_stops;
	pid_t parent;  /* recorded parent tid (0 for the first) */
	bool started;  /* has exec'd under mrr: events are recorded */
	bool held;     /* new child waiting for its parent's fork event */
	bool released; /* parent's fork event written: may run */
	bool first_stop_seen;
	bool after_exec;    /* next syscall-exit is execve's */
	bool nnp_exec;	    /* its execve became prctl(PR_SET_NO_NEW_PRIVS)
			     * and is made again at that call's exit */
	bool strict_filter; /* its call entering strict mode became the
			     * install of a filter of mrr's (record_virt.c) */
	bool in_syscall;    /* entry seen, waiting for the exit */
	/* a tkill/tgkill of itself, resumed without an exit stop: the
	 * signal's delivery stop comes at the call's exit, with the exit's
	 * registers, and stands for that exit (record_syscall.c) */
	bool exit_at_signal;
	bool fork_written; /* this syscall's event was written at fork */
	bool exiting;	   /* exit/exit_group entered */
	/* killed by (emulated) seccomp strict mode at the entry of the call
	 * in nr: its exit event names that call, where the replay kills it */
	bool strict_killed;
	/* a munmap narrowed around mrr's page, finished at its exit */
	struct page_around around;
	bool exit_written; /* its MRR_EV_EXIT is in the trace */
	/* killed by another thread's execve (the kernel ends the other
	 * threads): its exit event waits for the exec event, which at replay
	 * is what ends it */
	bool exit_deferred;
	int deferred_status;
	/* a thread that was not its process's leader exec'd: the kernel gave
	 * it the leader's tid; the exec event names it by this old tid */
	pid_t exec_old_tid;
	/* A vfork parent: the kernel lets it go once its child has exec'd or
	 * exited, but the child's exec or exit event may reach the trace
	 * after the parent's next stop. The parent's stops are held back
	 * (held_status) until that event is written, so the trace keeps the
	 * order the replay can follow. */
	pid_t vfork_child;
	bool has_held_stop;
	int held_status;
	/* A write to mrr's stdout/stderr held at its entry while another
	 * task's write there is in flight (recorder.c, "output order"). */
	bool echo_waiting;
	bool have_exit_regs; /* exit_regs valid: no user code ran since */
	struct user_regs_struct entry_regs, exit_regs;
	int64_t last_result;
	long nr;
	uint64_t args[6];
	uint32_t lenptr_before[3];
	uint64_t iov_saved[2]; /* readv-style: iov array address, count */
	/* the call that returned ERESTART_RESTARTBLOCK: restart_syscall
	 * resumes it and writes what it writes (poll's pollfds...) */
	bool job_stopped;     /* in a group-stop, left there (jobctl.c) */
	uint32_t cmd_out_len; /* bpf map lookups: bytes the kernel writes */
	bool restart_saved;
	long restart_nr;
	uint64_t restart_args[6];
	/* madvise in progress */
	struct mrr_pagemap *pagemap;
	struct mrr_page_snapshot *snap;
	bool madv_forced;
	/* a call made again after mrr woke it (eintr.h): when the
	 * first call began, its timeout (-1 none), and the program's
	 * timespec while a shorter one stands in its place */
	bool eintr_again, eintr_shortened;
	int64_t eintr_start_ns, eintr_timeout_ns;
	uint64_t eintr_saved_arg; /* its timeout argument as the program
				     gave it */
	struct timespec eintr_saved_ts;
	/* a signal mrr deferred to the next syscall exit */
	bool deferred;
	siginfo_t deferred_info;
	bool injecting;
	siginfo_t injecting_info;
	/* more signals that arrived while one was held, in arrival order:
	 * each is re-sent once the one before it is in its handler */
	siginfo_t queued[16];
	int nqueued;
	/* resumed with PTRACE_SINGLESTEP into a handler: the next SIGTRAP
	 * stop is the handler's first instruction, before any user code */
	bool entering_handler;
	uint64_t sbuf_addr; /* registered syscall buffer, or 0 */
	/* bytes of the buffer's records written to the trace while the task
	 * blocked inside a buffered call (rec_sbuf_flush_busy), or 0 */
	uint32_t sbuf_flushed;
	/* it gave up the slot blocked in a buffered call: this counter stops
	 * it where the call returns (sbuf_block.c) */
	bool sbuf_ret_armed;
	struct bpcount sbuf_ret;
	uint64_t sbuf_check_ms; /* when the stall check last looked */
	uint64_t shm_size;	/* shmdt in progress: the mapping's size */
	/* What the program sees of the settings mrr changes for itself
	 * (record_virt.c); inherited at fork, kept across exec. */
	struct rec_virt {
		bool init;   /* filled in (lazily, from mrr's own) */
		bool norand; /* ADDR_NO_RANDOMIZE, as the program set it */
		int tsc;     /* PR_GET_TSC */
		int seccomp; /* PR_GET_SECCOMP */
		bool nnp;    /* PR_GET_NO_NEW_PRIVS */
	} virt;
	/* syscall user dispatch as the program set it (sud.c): calls from
	 * ip with ip - off >= len are dispatched, unless the selector byte at
	 * sel (when not 0) says ALLOW; the code ranges of libc and mrr's
	 * preload library, found when it was turned on */
	struct rec_sud {
		bool on;
		uint64_t off, len, sel;
		uint64_t libc_lo, libc_hi, preload_lo, preload_hi;
	} sud;
	bool untraced_cleared; /* clone: CLONE_UNTRACED taken out until the
				* exit (core/clone_untraced.h) */
	bool filter_rewritten; /* seccomp filter install: rdx points at
				* mrr's rewrite until the exit */
	/* PR_GET_DUMPABLE as the program set it (0: its parent's; 1: yes;
	 * 2: no). The task itself stays dumpable, or mrr could not read its
	 * /proc files as an unprivileged user. */
	uint8_t dumpable;
	struct rec_preempt *pre;  /* preempt.c's state, or NULL */
	struct spin_gates *gates; /* spin.c's gates, or NULL */
	/* ptrace emulated for the program (vptrace.h): its virtual tracer's
	 * hold on it, and its own side as a tracer; NULL when none */
	struct rec_vptrace *vp;
	struct rec_vwait *vw;
	int exit_status; /* its wait status, once it ended */
};

struct recorder {
	mrr_trace_writer *w;
	const char *trace_dir;
	struct rtask *tasks;
	int ntasks;
	pid_t first_pid;
	int first_status;
	bool first_exited;
	int write_err;	       /* first trace write error */
	char stop_reason[768]; /* why recording stopped early, or "" */
	pid_t echo_writer; /* task whose write to mrr's stdout/stderr runs */
	int stop_code;	   /* exit code for the early stop */
	bool pfn_readable;
	bool syscallbuf;  /* accept syscall buffer registrations */
	bool backtrace;	  /* store stacks at memory syscalls */
	bool tsc_rewrite; /* rewrite rdtsc sites (rdtsc does not trap) */
	struct stat_id {
		unsigned long long dev, ino;
	} out_id, err_id; /* mrr's stdout/stderr, for echo flags */
	/* cache of stored files: (dev, ino, size, mtime) -> name */
	struct stored_file {
		unsigned long long dev, ino, size;
		long long mtime_ns;
		char name[MRR_STORED_NAME_MAX];
		struct tsc_site *sites; /* rdtsc sites, once looked for */
		long nsites;		/* -1: not looked for yet */
		bool from_cache;	/* linked from the file cache: a copy */
	} * stored;
	size_t nstored, stored_cap;
	/* memfd_secret files mapped so far (record_mem.c): inode numbers */
	unsigned long long *secret_inos;
	size_t nsecret;
	struct filecache *fc; /* the user's file cache, or NULL (filecache.h) */
	uint64_t park_clock;  /* orders parked stops */
	unsigned long sched_switches; /* slot changes between threads */
	bool sched_armed;	      /* the stall timer runs */
	int sbuf_partial;	      /* tasks with sbuf_flushed set (a hint) */
};

/* recorder.c: handles one ptrace stop of t (which holds its group's slot)
 * and resumes t, or leaves it held. */
void rec_dispatch_stop(struct recorder *rec, struct rtask *t, int status);
/* recorder.c: resumes t from a syscall's exit stop once its event is
 * written (delivering a signal mrr held back for this point). */
void rec_exit_tail(struct recorder *rec, struct rtask *t);
/* recorder.c: handles a wait status of t that the caller took from
 * waitpid itself (an exit, or a stop through rec_sched_stop). */
void rec_handle_wait(struct recorder *rec, struct rtask *t, int status);
/* Whether the user interrupted the recording (SIGINT, SIGTERM, SIGHUP). */
bool rec_interrupted(void);

/* threads.c: the thread scheduler (one task of an address space runs at a
 * time). */
/* A new task: a group of its own until rec_sched_clone says otherwise. */
void rec_sched_new_task(struct rtask *t);
/* Every stop of t goes through here: handled now if t may run, else parked
 * until the slot is free. */
void rec_sched_stop(struct recorder *rec, struct rtask *t, int status);
/* At parent's clone/fork event: puts child in parent's group when they
 * share memory (then child's first stop waits for the slot). Returns
 * whether it did. */
bool rec_sched_clone(struct recorder *rec, struct rtask *parent,
		     struct rtask *child);
/* t exec'd: a new address space, a group of its own. */
void rec_sched_exec(struct recorder *rec, struct rtask *t);
/* t is gone (before it is freed): its slot goes to a waiting task. */
void rec_sched_gone(struct recorder *rec, struct rtask *t);
/* t stopped for a reason of its own (a group-stop, jobctl.c) and will not
 * run until something outside wakes it: its slot goes to the longest
 * parked task of its process, which must run to join the group-stop. */
void rec_sched_release(struct recorder *rec, struct rtask *t, const char *why);
/* Before waiting: runs the stall timer while some task waits for a slot. */
void rec_sched_arm(struct recorder *rec);
/* After the stall timer interrupted the wait: a runner blocked in a call
 * the table does not list lets another run; one that spun too long stops
 * the recording. */
void rec_sched_check(struct recorder *rec);
/* The recording loop ended: stops the stall timer. */
void rec_sched_end(struct recorder *rec);

/* record_syscall.c */
void rec_syscall_entry(struct recorder *rec, struct rtask *t);
void rec_syscall_exit(struct recorder *rec, struct rtask *t);
/* signals.c: whether t's call (at its entry) is a tkill or tgkill of itself
 * whose signal's delivery stop can stand for the call's exit stop. */
bool rec_self_signal(struct rtask *t);
/* signals.c: the stop (status) that follows a call resumed with
 * exit_at_signal: writes the call's event from this stop's registers when
 * it is one the kernel makes before returning to user code (a signal or a
 * group stop), else stops the recording. Returns true when the caller
 * should go on handling status. */
bool rec_exit_at_signal(struct recorder *rec, struct rtask *t, int status);
void rec_fork_event(struct recorder *rec, struct rtask *t, pid_t child);
void capture_reset(struct capture *c);
int capture_add(struct capture *c, struct rtask *t, uint64_t addr,
		uint64_t len);
/* Adds a write of len bytes at addr holding data (bytes mrr has, not read
 * from the task): -E2BIG when the capture is full. */
int capture_put(struct capture *c, uint64_t addr, const void *data,
		uint64_t len);
int capture_extra(struct capture *c, const void *data, size_t len);
void rec_write_event(struct recorder *rec, struct rtask *t,
		     struct mrr_event *ev, struct capture *c);
/* MRR_EVF_TO_STDOUT or MRR_EVF_TO_STDERR when fd of the task is the same
 * open file as mrr's stdout or stderr, else 0. */
uint32_t echo_flags(struct recorder *rec, struct rtask *t, uint64_t fd);
/* recorder.c: at the entry of t's syscall (t->nr, t->args read): true when
 * it is a write to mrr's stdout/stderr while another process's is in
 * flight; t then stays stopped, and the recorder takes its stop up again
 * once that write has ended. */
bool rec_output_wait(struct recorder *rec, struct rtask *t);
void rec_stop(struct recorder *rec, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* At a syscall's entry stop: the call does not run; the task gets result
 * and the event records c's memory (which the caller wrote into the task). */
void rec_skip_syscall(struct recorder *rec, struct rtask *t, int64_t result,
		      struct capture *c);
/* The same, but leaves the task stopped, for a caller that runs another
 * call in the skipped one's place (its registers are set for the skip). */
void rec_skip_event(struct recorder *rec, struct rtask *t, int64_t result,
		    struct capture *c);

/* record_mem.c: at a synchronous SIGBUS of t (BUS_ADRERR) in a page of a
 * mapped file that lies inside the file: the file system failed to give
 * the page (ENOSPC at a write fault, an I/O error), which the replay's
 * copy of the file would not repeat. Stops the recording and returns true
 * then; false for other signals (a SIGBUS past the end of the file
 * recurs at replay by itself). */
bool rec_host_fault(struct recorder *rec, struct rtask *t, const siginfo_t *si);

/* record_ioctl.c */
/* At entry: true when the recording stops (an ioctl mrr cannot record). */
bool rec_ioctl_entry(struct recorder *rec, struct rtask *t);
/* At exit: captures what ioctl, fcntl, msgctl, semctl or keyctl wrote;
 * false for other calls. */
bool rec_family_capture(struct rtask *t, int64_t result, struct capture *c);

/* record_cmds.c: quotactl, bpf, perf_event_open (and mmap of their fds).
 * Entry: true when the call is refused (rec_stop called, t left stopped).
 * Capture at exit: true when t's call is one of them. */
bool rec_cmds_entry(struct recorder *rec, struct rtask *t);
bool rec_cmds_capture(struct rtask *t, int64_t result, struct capture *c);

/* record_vmwrite.c: process_vm_writev into a recorded process. Entry: true
 * when refused (rec_stop called). Exit: the extra for the replay. */
bool rec_vm_writev_entry(struct recorder *rec, struct rtask *t);
void rec_vm_writev_exit(struct recorder *rec, struct rtask *t, int64_t result,
			struct capture *c);

/* proc_status.c: reads of a recorded task's /proc/PID/status show its own
 * no_new_privs, seccomp mode and filter count (see there). At the exit of
 * a read-family call, after its capture: mends the captured bytes and the
 * program's memory alike. */
void rec_status_mend_capture(struct recorder *rec, struct rtask *t,
			     struct capture *c);
/* At a flush, for each buffered record (data: its bytes in mrr's copy, to
 * be written to the trace): the same for a buffered read. */
struct mrr_syscallbuf_rec;
void rec_status_mend_record(struct recorder *rec, struct rtask *t,
			    const struct mrr_syscallbuf_rec *r, uint8_t *data);

/* record_virt.c */
/* At the seccomp stop of an execve or execveat (mrr running as root without
 * no_new_privs): true when the file would raise privileges, so that the
 * kernel would turn address randomisation back on, and the task has no
 * no_new_privs. The call was then swapped for prctl(PR_SET_NO_NEW_PRIVS)
 * (t->nnp_exec set, the task resumed); at that call's exit stop
 * rec_exec_nnp_again puts the execve back to be made again. */
bool rec_exec_nnp(struct rtask *t);
void rec_exec_nnp_again(struct rtask *t);
/* Fills t->virt from mrr's own settings when it is not filled in yet. */
void rec_virt_init(struct rtask *t);
/* At entry: true when the call was answered (and recorded) here. */
bool rec_virt_entry(struct recorder *rec, struct rtask *t);
/* At exit, before the event is written: may correct regs->rax. */
void rec_virt_exit(struct rtask *t, struct user_regs_struct *regs);
void rec_virt_inherit(struct rtask *child, struct rtask *parent);
/* At the entry of a seccomp filter install, before mrr rewrites it: true
 * when the call was answered (EACCES, recorded) here, because natively the
 * task would have neither no_new_privs nor CAP_SYS_ADMIN. */
bool rec_virt_filter_denied(struct recorder *rec, struct rtask *t);
/* At the entry of a call of t in (emulated) seccomp strict mode that the
 * mode forbids: true when t was ended for it, as the kernel does (the call
 * does not run and nothing is recorded but t's end): SIGKILL when it is
 * its process's only task, else an exit of the thread alone. */
bool rec_virt_strict_kill(struct recorder *rec, struct rtask *t);
/* At the exit stop of the filter install that replaced the call entering
 * strict mode (t->strict_filter): gives the program the call's 0. */
void rec_virt_strict_exit(struct rtask *t);

/* sud.c: syscall user dispatch. At the entry of prctl
 * (PR_SET_SYSCALL_USER_DISPATCH): true when answered (and recorded) here.
 * At the entry of any other call of the program: true when the call was
 * dispatched (skipped, SIGSYS on its way) or the recording stopped. */
bool rec_sud_prctl(struct recorder *rec, struct rtask *t);
bool rec_sud_entry(struct recorder *rec, struct rtask *t);
/* Whether si is the SIGSYS of a dispatched call. */
bool rec_sud_signal(const siginfo_t *si);

/* record_mem.c: the VMAs of pid that overlap [start, end), sorted (with
 * PROCMAP_QUERY; without it, or with_flags, every VMA of pid); returns the
 * count and a malloc'd array (free it; NULL when 0) or -errno. */
struct proc_vma;
long rec_vmas_in_range(pid_t pid, uint64_t start, uint64_t end, bool with_flags,
		       struct proc_vma **out);

/* record_sbuf_mem.c: checks the buffered mprotects among one flush's
 * records (recs[0, len), well-formed) against tid's memory map, and that
 * none touches mrr's page or the buffer at sbuf. Returns NULL when they
 * agree, else a reason for the error message (in why, whylen bytes). */
const char *rec_sbuf_check_mprotects(pid_t tid, uint64_t sbuf,
				     const uint8_t *recs, size_t len, char *why,
				     size_t whylen);

/* record_sbuf.c */
void rec_sbuf_flush(struct recorder *rec, struct rtask *t);
int64_t rec_sbuf_register(struct recorder *rec, struct rtask *t);
void rec_sbuf_no_probe(struct rtask *t);
void rec_sbuf_trace_next(struct rtask *t);
/* t is blocked inside a buffered call (its buffer busy): writes the
 * records it committed before that call, without resetting the buffer;
 * the next rec_sbuf_flush writes only those that came after. */
void rec_sbuf_flush_busy(struct recorder *rec, struct rtask *t);

/* sbuf_block.c: a runner blocked inside a buffered call. */
/* Called by the stall check for the runner t, in S or D state without a
 * stop for a while and outside traced calls: true when t is blocked in an
 * untraced call of its syscall buffer and gave up the slot here (its
 * records and an MRR_EV_SCHED written, a stop armed where the call
 * returns); the caller hands the slot over. */
bool rec_sbuf_block_check(struct recorder *rec, struct rtask *t);
/* Every stop of t first: 1 when it is the stop where t's blocked buffered
 * call returned (mrr's own: resume t without a signal once it has the
 * slot), else 0. */
int rec_sbuf_block_stop(struct recorder *rec, struct rtask *t, int status);
/* t is gone or exec'd: drops its counter and its flushed offset. */
void rec_sbuf_block_gone(struct recorder *rec, struct rtask *t);
/* At the end of the recording: debug counts (and MRR_PREEMPT_STATS). */
void rec_sbuf_block_stats(void);

/* rec_watch.c: the recording's watchdog. rec_watch_stop: the main loop
 * took a stop (or an exit) from waitpid. rec_watch_check: at each tick of
 * the scheduler's timer; reports once on stderr when no task has stopped
 * for MRR_RECORD_QUIET seconds (default 10) and none runs. */
void rec_watch_stop(void);
void rec_watch_check(struct recorder *rec);

/* seccomp_guard.c */
/* At t's seccomp stop: refuses what mrr cannot record (a syscall made from
 * mrr's page, a seccomp user-space supervisor) and
 * rewrites a seccomp filter the program installs. Returns false when it
 * stopped the recording. */
bool rec_seccomp_entry(struct recorder *rec, struct rtask *t);
/* At the syscall's exit (regs: its exit registers): puts back the argument
 * the rewrite changed. */
void rec_seccomp_exit(struct rtask *t, struct user_regs_struct *regs);
/* Whether t's syscall sends a signal to mrr's own process (kill, tkill,
 * tgkill, rt_[tg]sigqueueinfo, pidfd_send_signal), or a stop signal to
 * mrr's process group or to every process. mrr takes no signal from the
 * program it records: such a call is skipped, with result 0. */
bool rec_signals_mrr(struct rtask *t);
/* Whether sig is blocked or ignored in tid (/proc/TID/status). */
bool rec_sig_blocked_or_ignored(pid_t tid, int sig);
/* Whether si (in mrr's SIGINT/TERM/HUP handler) was sent by a process mrr
 * traces, e.g. kill(0, SIGINT) to the whole process group. Such a signal is
 * not the user's: it does not stop the recording. Async-signal-safe. */
bool rec_signal_from_tracee(const siginfo_t *si);
/* Whether t's syscall writes (write, pwrite, writev, sendfile, splice,
 * copy_file_range) to a process's memory file (/proc/PID/mem), however it
 * was opened: such writes change memory behind mrr's back. Puts the file's
 * name in what. */
bool rec_writes_proc_mem(struct rtask *t, char *what, size_t what_len);
/* prctl(PR_SET_DUMPABLE / PR_GET_DUMPABLE) of t: returns 1 when mrr
 * answers it itself (the call is skipped with *result), else 0. */
int rec_dumpable_entry(struct recorder *rec, struct rtask *t, int64_t *result);
/* Whether t's process_madvise names a range on mrr's page. */
bool rec_iov_touches_mrr_page(struct rtask *t);

/* record_shm.c: the pages of the SysV segment just attached at addr
 * (size bytes) that hold data, as writes of c. Returns 0, -E2BIG (more
 * than 1 GiB of them) or -errno. */
int rec_capture_shm(struct recorder *rec, struct rtask *t, uint64_t addr,
		    uint64_t size, struct capture *c);

/* record_mem.c */
void rec_madvise_entry(struct recorder *rec, struct rtask *t);
void rec_madvise_exit(struct recorder *rec, struct rtask *t, struct capture *c);
/* The stored file that fd of t is open on (a regular file some recorded
 * process maps), or NULL; its current size into *size and its ident (as
 * in struct mrr_mmap_extra) into *ident. */
const struct stored_file *rec_stored_for_fd(struct recorder *rec,
					    struct rtask *t, int fd,
					    uint64_t *size, uint32_t *ident);
int rec_store_fd_file(struct recorder *rec, struct rtask *t, int fd,
		      unsigned flags, char name[MRR_STORED_NAME_MAX],
		      uint64_t *size);
int rec_store_path(struct recorder *rec, const char *path,
		   char name[MRR_STORED_NAME_MAX]);
void rec_mmap_exit(struct recorder *rec, struct rtask *t, struct capture *c);
/* At the exit of an ftruncate or fallocate (t->last_result set): notes a
 * size change of a mapped file for the replay's copy. */
void rec_file_resize_exit(struct recorder *rec, struct rtask *t,
			  struct capture *c);
/* Rewrites the rdtsc sites of the file stored as name, mapped at
 * [start, end) from file offset offset, and captures the rewritten bytes.
 * path is where the file can be read now. */
void rec_patch_tsc(struct recorder *rec, struct rtask *t, const char *name,
		   const char *path, uint64_t start, uint64_t end,
		   uint64_t offset, struct capture *c);

#endif
