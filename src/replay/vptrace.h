/* Replay of the program's own ptrace calls (see src/record/vptrace.h).
 * The tracer's calls are emulated events like any other; the one effect
 * on another task the replay repeats is a write into the tracee
 * (PTRACE_POKEDATA/POKETEXT), which the recorder allowed only where the
 * tracee had run no user code since its last event, so that the replay's
 * tracee, stopped after that same event, takes it at the same state. */
#ifndef MRR_REPLAY_VPTRACE_H
#define MRR_REPLAY_VPTRACE_H

struct replayer;
struct ptask;

/* For the tracer t's ptrace event being replayed (rp->ev, skipped at
 * record): applies its effect on the tracee. Returns 0, or -1 after a
 * divergence report. */
int replay_vptrace(struct replayer *rp, struct ptask *t);

#endif
