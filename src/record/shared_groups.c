/* Processes that share writable memory. A private mapping is copied at
 * fork and so never shared; a shared one is the same pages in parent and
 * child. Shared views of regular files that neither can write are left
 * out: only processes outside the recording could change them, and mrr
 * does not see those anyway (README, Limits). */
#include "record/shared_groups.h"

#include "core/log.h"
#include "core/proc.h"
#include "core/tracee.h"
#include "record/rtask.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Shared memory objects: whatever the view's protection, another view of
 * the same pages may be writable. */
static bool shared_memory_object(const char *name)
{
	return !name[0] || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/memfd:", 7) || !strncmp(name, "/SYSV", 5) ||
	       !strncmp(name, "/dev/shm/", 9);
}

bool rec_shares_writable(struct recorder *rec, struct rtask *parent)
{
	struct proc_vma *v = NULL;
	long n, i;
	bool shares = false;

	(void)rec;
	n = proc_read_vmas(parent->t.tid, false, &v);
	for (i = 0; i < n && !shares; i++) {
		if (!v[i].shared ||
		    (v[i].start < MRR_PAGE_ADDR + MRR_PAGE_SIZE &&
		     v[i].end > MRR_PAGE_ADDR))
			continue;
		if ((v[i].prot & PROT_WRITE) ||
		    shared_memory_object(v[i].name)) {
			mrr_debug(
				"threads: pid %d shares 0x%llx-0x%llx %s with "
				"its child: they run one at a time",
				parent->tgid, (unsigned long long)v[i].start,
				(unsigned long long)v[i].end,
				v[i].name[0] ? v[i].name : "(anonymous)");
			shares = true;
		}
	}
	free(v);
	return shares;
}
