/* The seccomp filter mrr installs in every recorded and replayed program:
 * syscalls from the mrr page's untraced instruction run freely, all others
 * stop the tracer (SECCOMP_RET_TRACE). */
#ifndef MRR_CORE_SECCOMP_FILTER_H
#define MRR_CORE_SECCOMP_FILTER_H

/* Installs the filter in the calling process (the child, before execve).
 * Sets no_new_privs first, so set-user-ID and set-group-ID bits are not
 * honoured in the recorded program. Returns 0 or -errno. */
int mrr_install_seccomp_filter(void) __attribute__((warn_unused_result));

#endif
