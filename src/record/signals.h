/* Recording signals: which are synchronous, which are deferred to a point
 * the replay can reproduce (right after a syscall), and rdtsc traps. */
#ifndef MRR_RECORD_SIGNALS_H
#define MRR_RECORD_SIGNALS_H

struct recorder;
struct rtask;

/* Handles a signal-delivery-stop of sig for t and resumes t. */
void rec_signal_stop(struct recorder *rec, struct rtask *t, int sig);

#endif
