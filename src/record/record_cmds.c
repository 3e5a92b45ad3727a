/* quotactl, bpf, perf_event_open, sysfs and io_uring_setup: recorded where mrr
 * knows what the call writes (src/syscalls/cmds.c), refused with a sentence
 * naming the command otherwise. Replay emulates them (result and memory from
 * the trace). Also refuses mmap of a perf event or bpf map fd: the kernel
 * writes those pages while the program runs, behind mrr's back. */
#include "core/exitcodes.h"
#include "record/rtask.h"
#include "syscalls/cmds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long long events(struct recorder *rec)
{
	return (unsigned long long)mrr_trace_writer_events(rec->w);
}

/* A line "key:\t<n>" of /proc/TID/fdinfo/FD, or -1. */
static long fdinfo_value(pid_t tid, int fd, const char *key)
{
	char path[64], line[128];
	size_t n = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", tid, fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 0);
	fclose(f);
	return v;
}

static bool fd_is(pid_t tid, int fd, const char *what)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", tid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	return strcmp(link, what) == 0;
}

static bool quotactl_entry(struct recorder *rec, struct rtask *t, uint64_t cmd)
{
	const char *name;

	if (mrr_quotactl_out(cmd, &name) >= 0)
		return false;
	if (name)
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called %s(%s) at event %llu; mrr does not "
			 "know what %s writes, so the recording stops here",
			 t->t.tid,
			 t->nr == SYS_quotactl ? "quotactl" : "quotactl_fd",
			 name, events(rec), name);
	else
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called quotactl with command 0x%llx at event "
			 "%llu, which mrr does not know, so the recording "
			 "stops here",
			 t->t.tid, (unsigned long long)cmd, events(rec));
	return true;
}

static bool bpf_entry(struct recorder *rec, struct rtask *t)
{
	const char *name = mrr_bpf_cmd_name(t->args[0]);
	enum mrr_bpf_out out = mrr_bpf_cmd_out(t->args[0]);
	uint32_t map_fd;
	long type, size;

	t->cmd_out_len = 0;
	if (out == MRR_BPF_UNSUPPORTED) {
		char num[32];

		snprintf(num, sizeof(num), "command %llu",
			 (unsigned long long)t->args[0]);
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called bpf(%s) at event %llu; bpf(%s) is not "
			 "supported (mrr records only the map commands, whose "
			 "effects it can replay), so the recording stops here",
			 t->t.tid, name ? name : num, events(rec),
			 name ? name : num);
		return true;
	}
	if (out == MRR_BPF_NOTHING)
		return false;
	/* the map's sizes, from its fd */
	if (tracee_read_all(&t->t, t->args[1], &map_fd, 4) < 0)
		return false; /* EFAULT: nothing written */
	type = fdinfo_value(t->t.tid, (int)map_fd, "map_type");
	size = fdinfo_value(t->t.tid, (int)map_fd,
			    out == MRR_BPF_MAP_VALUE ? "value_size"
						     : "key_size");
	/* per-CPU maps copy one value per possible CPU */
	if (out == MRR_BPF_MAP_VALUE &&
	    (type == 5 || type == 6 || type == 10 || type == 21)) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called bpf(%s) on a per-CPU map at event "
			 "%llu; that is not supported, so the recording stops "
			 "here",
			 t->t.tid, name, events(rec));
		return true;
	}
	if (size > 0 && size <= (1 << 20))
		t->cmd_out_len = (uint32_t)size;
	return false;
}

static bool perf_entry(struct recorder *rec, struct rtask *t)
{
	struct {
		uint32_t type, size;
		uint64_t config, sample_period, sample_type, read_format;
		uint64_t flags;
	} attr;
	const char *name;

	if (tracee_read_all(&t->t, t->args[0], &attr, sizeof(attr)) < 0)
		return false; /* the kernel answers EFAULT */
	name = mrr_perf_type_name(attr.type);
	if (!mrr_perf_type_recordable(attr.type)) {
		char num[32];

		snprintf(num, sizeof(num), "type %u", attr.type);
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called perf_event_open for an event of %s at "
			 "event %llu; mrr records only counting hardware, "
			 "software and cache events, so the recording stops "
			 "here",
			 t->t.tid, name ? name : num, events(rec));
		return true;
	}
	if (attr.sample_period) {
		rec_stop(rec, MRR_EXIT_UNSUPPORTED,
			 "pid %d called perf_event_open for a sampling event "
			 "(%s, sample %s %llu) at event %llu; the kernel "
			 "writes samples as the program runs, which mrr cannot "
			 "record, so the recording stops here",
			 t->t.tid, name,
			 (attr.flags & (1u << 10)) ? "frequency" : "period",
			 (unsigned long long)attr.sample_period, events(rec));
		return true;
	}
	return false;
}

/* io_uring_setup makes only an fd (LTP's tst_fd makes one of every kind),
 * until the program maps the rings or enters the ring, which are refused.
 * Rings in the program's own memory (IORING_SETUP_NO_MMAP) with a kernel
 * thread polling them (IORING_SETUP_SQPOLL) need neither: refused here. */
static bool io_uring_setup_entry(struct recorder *rec, struct rtask *t)
{
	uint32_t flags;

	if (tracee_read_all(&t->t, t->args[1] + 8, &flags, 4) < 0 ||
	    (flags & 0x4002) != 0x4002) /* SQPOLL | NO_MMAP */
		return false;
	rec_stop(rec, MRR_EXIT_UNSUPPORTED,
		 "pid %d called io_uring_setup with IORING_SETUP_SQPOLL and "
		 "IORING_SETUP_NO_MMAP at event %llu; a kernel thread would "
		 "run the requests the program writes into its own memory, "
		 "outside any syscall, which mrr cannot record, so the "
		 "recording stops here",
		 t->t.tid, events(rec));
	return true;
}

bool rec_cmds_entry(struct recorder *rec, struct rtask *t)
{
	switch (t->nr) {
	case SYS_quotactl:
		return quotactl_entry(rec, t, t->args[0]);
	case SYS_quotactl_fd:
		return quotactl_entry(rec, t, t->args[1]);
	case SYS_bpf:
		return bpf_entry(rec, t);
	case SYS_perf_event_open:
		return perf_entry(rec, t);
	case SYS_io_uring_setup:
		return io_uring_setup_entry(rec, t);
	case SYS_mmap:
		if (fd_is(t->t.tid, (int)t->args[4], "anon_inode:[io_uring]")) {
			rec_stop(rec, MRR_EXIT_UNSUPPORTED,
				 "pid %d called mmap on fd %d, an io_uring "
				 "instance, at event %llu; the kernel writes "
				 "its rings as the program runs, which mrr "
				 "cannot record, so the recording stops here",
				 t->t.tid, (int)t->args[4], events(rec));
			return true;
		}
		if (fd_is(t->t.tid, (int)t->args[4],
			  "anon_inode:[perf_event]") ||
		    fd_is(t->t.tid, (int)t->args[4], "anon_inode:bpf-map")) {
			rec_stop(
				rec, MRR_EXIT_UNSUPPORTED,
				"pid %d called mmap on fd %d, a %s, at event "
				"%llu; the kernel writes that memory as the "
				"program runs, which mrr cannot record, so the "
				"recording stops here",
				t->t.tid, (int)t->args[4],
				fd_is(t->t.tid, (int)t->args[4],
				      "anon_inode:bpf-map")
					? "bpf map"
					: "perf event (perf_event_open)",
				events(rec));
			return true;
		}
		return false;
	}
	return false;
}

bool rec_cmds_capture(struct rtask *t, int64_t result, struct capture *c)
{
	const char *name;
	uint64_t ptr;
	long out;

	switch (t->nr) {
	case SYS_quotactl:
	case SYS_quotactl_fd:
		out = mrr_quotactl_out(
			t->nr == SYS_quotactl ? t->args[0] : t->args[1], &name);
		if (result == 0 && out > 0)
			capture_add(c, t, t->args[3], (uint64_t)out);
		return true;
	case SYS_bpf:
		if (result == 0 && t->cmd_out_len &&
		    tracee_read_all(&t->t, t->args[1] + 16, &ptr, 8) == 0)
			capture_add(c, t, ptr, t->cmd_out_len);
		return true;
	case SYS_perf_event_open:
		return true;
	case SYS_sysfs: {
		char fsname[MRR_SYSFS_NAME_MAX];

		ptr = mrr_sysfs_out(t->args);
		if (result == 0 && ptr &&
		    tracee_read_str(&t->t, ptr, fsname, sizeof(fsname)) == 0)
			capture_add(c, t, ptr, strlen(fsname) + 1);
		return true;
	}
	}
	return false;
}
