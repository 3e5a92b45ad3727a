/* Per-command knowledge of multiplexed syscalls whose out-parameters depend
 * on a command argument: quotactl/quotactl_fd, bpf, perf_event_open and
 * sysfs.
 * Part of the syscall table (src/syscalls/): the recorder asks it what
 * a call writes and whether mrr can record it at all. Read-only data. */
#ifndef MRR_SYSCALLS_CMDS_H
#define MRR_SYSCALLS_CMDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sysfs(option, ...): the address of the block the kernel writes when the
 * call succeeds, or 0. Option 2 (index, buf) writes the name of a file
 * system type and its NUL at buf: a string whose length the recorder reads
 * after the call, at most MRR_SYSFS_NAME_MAX bytes (the kernel copies
 * strlen + 1 bytes of a name it registered). Options 1 and 3 answer in
 * their result. */
#define MRR_SYSFS_NAME_MAX 256
uint64_t mrr_sysfs_out(const uint64_t args[6]);

/* quotactl's cmd (QCMD(subcmd, type)): the bytes the kernel writes at the
 * addr argument when it succeeds (0: nothing), or -1 for a subcommand mrr
 * does not know (XFS quota calls...). *name gets the subcommand's name
 * ("Q_GETQUOTA"), or NULL. */
long mrr_quotactl_out(uint64_t cmd, const char **name);

/* What a bpf command writes. */
enum mrr_bpf_out {
	MRR_BPF_UNSUPPORTED = 0, /* mrr refuses it */
	MRR_BPF_NOTHING,	 /* only its result (an fd, 0) */
	MRR_BPF_MAP_VALUE, /* value_size bytes at attr.value (u64 at 16) */
	MRR_BPF_MAP_KEY,   /* key_size bytes at attr.next_key (u64 at 16) */
};

/* The bpf command's name ("BPF_PROG_LOAD"), or NULL. */
const char *mrr_bpf_cmd_name(uint64_t cmd);
enum mrr_bpf_out mrr_bpf_cmd_out(uint64_t cmd);

/* perf_event_open: the name of a struct perf_event_attr type
 * ("PERF_TYPE_SOFTWARE"), or NULL; and whether mrr records an event of
 * that type that only counts (sample_period 0): its fd's reads are
 * recorded like any read. Sampling events (a ring buffer the kernel
 * writes as the program runs) and other types are refused. */
const char *mrr_perf_type_name(uint32_t type);
int mrr_perf_type_recordable(uint32_t type);

#ifdef __cplusplus
}
#endif

#endif
