/* Making the vDSO's time functions recordable (vdso.c). */
#ifndef MRR_RECORD_VDSO_H
#define MRR_RECORD_VDSO_H

#include "record/rtask.h"

/* Right after an exec of t (stopped): overwrites each function the vDSO
 * exports with a stub that makes the matching syscall (or answers -ENOSYS),
 * and captures the patched image into c for the exec event, so that the
 * replay lays the same bytes over its own vDSO. Returns 0, or -errno when
 * the vDSO is missing or not understood (then nothing was changed). */
int rec_patch_vdso(struct rtask *t, struct capture *c)
	__attribute__((warn_unused_result));

#endif
