/* SIGTRAPs that are mrr's own breakpoints with their cause lost.
 *
 * An execute breakpoint of mrr's (a perf breakpoint counter, bpcount.h, or
 * a debug register of hwbp.h) raises a debug exception before its
 * instruction runs. The kernel reads DR6 to learn which breakpoint it was;
 * on a KVM guest under load DR6 sometimes reads 0 (about 2 exceptions in a
 * million, measured with one perf counter on a call in a hot loop). The
 * kernel then takes the exception for an icebp (int1) and sends the task
 * SIGTRAP with si_code TRAP_BRKPT and si_addr = rip = the breakpoint's
 * address, instead of counting the execution (or, for a ptrace breakpoint,
 * reporting TRAP_HWBKPT). The instruction has not run and the breakpoint is
 * still armed (no resume flag): resumed without the signal, the task runs
 * into it again, and that time it counts. Delivered, the SIGTRAP killed
 * `openssl speed` at record (about 1 recording in 8 under load).
 *
 * So every address where mrr arms an execute breakpoint for a task is
 * remembered (also for a while after it is disarmed: the trap may be seen
 * only after mrr closed the counter), and such a SIGTRAP at one of them is
 * mrr's. A program's own int1 right before an instruction that mrr counts
 * looks the same and would be swallowed: nothing tells the two apart.
 *
 * Not thread-safe: called by the thread that drives the tasks. */
#ifndef MRR_CORE_OWNTRAP_H
#define MRR_CORE_OWNTRAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* mrr arms (or keeps armed) an execute breakpoint at addr in task tid. */
void owntrap_armed(pid_t tid, uint64_t addr);
/* One of them is disarmed: remembered still, until room is needed. */
void owntrap_disarmed(pid_t tid, uint64_t addr);
/* Whether the SIGTRAP stop of tid with siginfo si at rip is one of mrr's
 * breakpoints whose cause the kernel lost (see above): si_code TRAP_BRKPT,
 * si_addr rip, and rip an address mrr armed for tid. */
bool owntrap_lost(const siginfo_t *si, pid_t tid, uint64_t rip);
/* Whether addr is one mrr armed for tid (now or lately). */
bool owntrap_known(pid_t tid, uint64_t addr);

#endif
