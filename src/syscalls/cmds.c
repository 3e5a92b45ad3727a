/* Per-command knowledge of quotactl, bpf, perf_event_open and sysfs
 * (cmds.h). */
#include "syscalls/cmds.h"

#include <stddef.h>

uint64_t mrr_sysfs_out(const uint64_t args[6])
{
	return args[0] == 2 ? args[2] : 0;
}

long mrr_quotactl_out(uint64_t cmd, const char **name)
{
	/* QCMD(cmd, type) = cmd << 8 | type; the VFS quota commands */
	static const struct {
		uint32_t sub;
		long out;
		const char *name;
	} q[] = {
		{0x800001, 0, "Q_SYNC"},
		{0x800002, 0, "Q_QUOTAON"},
		{0x800003, 0, "Q_QUOTAOFF"},
		{0x800004, 4, "Q_GETFMT"},   /* u32 format id */
		{0x800005, 24, "Q_GETINFO"}, /* struct if_dqinfo */
		{0x800006, 0, "Q_SETINFO"},
		{0x800007, 72, "Q_GETQUOTA"}, /* struct if_dqblk */
		{0x800008, 0, "Q_SETQUOTA"},
		{0x800009, 72, "Q_GETNEXTQUOTA"}, /* struct if_nextdqblk */
		{0x5801, 0, "Q_XQUOTAON"},
		{0x5802, 0, "Q_XQUOTAOFF"},
		{0x5803, -1, "Q_XGETQUOTA"},
		{0x5804, 0, "Q_XSETQLIM"},
		{0x5805, -1, "Q_XGETQSTAT"},
		{0x5806, 0, "Q_XQUOTARM"},
		{0x5807, 0, "Q_XQUOTASYNC"},
		{0x5808, -1, "Q_XGETQSTATV"},
		{0x5809, -1, "Q_XGETNEXTQUOTA"},
	};
	uint32_t sub = (uint32_t)(cmd >> 8) & 0xffffff;

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (q[i].sub == sub) {
			*name = q[i].name;
			return q[i].out;
		}
	*name = NULL;
	return -1;
}

static const char *const bpf_names[] = {
	"BPF_MAP_CREATE",	 "BPF_MAP_LOOKUP_ELEM",
	"BPF_MAP_UPDATE_ELEM",	 "BPF_MAP_DELETE_ELEM",
	"BPF_MAP_GET_NEXT_KEY",	 "BPF_PROG_LOAD",
	"BPF_OBJ_PIN",		 "BPF_OBJ_GET",
	"BPF_PROG_ATTACH",	 "BPF_PROG_DETACH",
	"BPF_PROG_TEST_RUN",	 "BPF_PROG_GET_NEXT_ID",
	"BPF_MAP_GET_NEXT_ID",	 "BPF_PROG_GET_FD_BY_ID",
	"BPF_MAP_GET_FD_BY_ID",	 "BPF_OBJ_GET_INFO_BY_FD",
	"BPF_PROG_QUERY",	 "BPF_RAW_TRACEPOINT_OPEN",
	"BPF_BTF_LOAD",		 "BPF_BTF_GET_FD_BY_ID",
	"BPF_TASK_FD_QUERY",	 "BPF_MAP_LOOKUP_AND_DELETE_ELEM",
	"BPF_MAP_FREEZE",	 "BPF_BTF_GET_NEXT_ID",
	"BPF_MAP_LOOKUP_BATCH",	 "BPF_MAP_LOOKUP_AND_DELETE_BATCH",
	"BPF_MAP_UPDATE_BATCH",	 "BPF_MAP_DELETE_BATCH",
	"BPF_LINK_CREATE",	 "BPF_LINK_UPDATE",
	"BPF_LINK_GET_FD_BY_ID", "BPF_LINK_GET_NEXT_ID",
	"BPF_ENABLE_STATS",	 "BPF_ITER_CREATE",
	"BPF_LINK_DETACH",	 "BPF_PROG_BIND_MAP",
	"BPF_TOKEN_CREATE",
};

const char *mrr_bpf_cmd_name(uint64_t cmd)
{
	return cmd < sizeof(bpf_names) / sizeof(bpf_names[0]) ? bpf_names[cmd]
							      : NULL;
}

enum mrr_bpf_out mrr_bpf_cmd_out(uint64_t cmd)
{
	switch (cmd) {
	case 0:	 /* BPF_MAP_CREATE: an fd */
	case 2:	 /* BPF_MAP_UPDATE_ELEM */
	case 3:	 /* BPF_MAP_DELETE_ELEM */
	case 22: /* BPF_MAP_FREEZE */
		return MRR_BPF_NOTHING;
	case 1:	 /* BPF_MAP_LOOKUP_ELEM */
	case 21: /* BPF_MAP_LOOKUP_AND_DELETE_ELEM */
		return MRR_BPF_MAP_VALUE;
	case 4: /* BPF_MAP_GET_NEXT_KEY */
		return MRR_BPF_MAP_KEY;
	}
	return MRR_BPF_UNSUPPORTED;
}

const char *mrr_perf_type_name(uint32_t type)
{
	static const char *const names[] = {
		"PERF_TYPE_HARDWARE",	"PERF_TYPE_SOFTWARE",
		"PERF_TYPE_TRACEPOINT", "PERF_TYPE_HW_CACHE",
		"PERF_TYPE_RAW",	"PERF_TYPE_BREAKPOINT",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

int mrr_perf_type_recordable(uint32_t type)
{
	/* counters of the task; a breakpoint would take the debug
	 * registers mrr needs, tracepoints and raw PMU events report
	 * what the rest of the system does */
	return type == 0 || type == 1 || type == 3;
}
