/* mrr's own waits, watched from a thread of its own: the recorder's main
 * thread may block in the kernel on the program's behalf, where no timer
 * of the main loop reaches it. The one such wait found so far: the program
 * holds a fanotify group with permission or pre-content marks (LTP
 * fanotify24, a virus scanner, an HSM daemon), and mrr's own open or read
 * of a file the program mapped waits for the program's listener to answer,
 * while mrr holds the listener stopped (it records one task at a time):
 * the kernel's wait can be ended only by a fatal signal. The watchdog ends
 * it: it kills the recorded processes that hold a fanotify group (the
 * kernel allows what their group left unanswered), and the main loop then
 * stops the recording with exit 69 and a sentence naming the file. */
#ifndef MRR_RECORD_SELF_WATCH_H
#define MRR_RECORD_SELF_WATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Starts the watchdog thread (all signals blocked in it). Returns 0, or
 * -errno (the recording goes on without it). */
int rec_self_watch_start(void);

/* The main loop came around: it is not stuck. Async-signal-safe. */
void rec_self_watch_beat(void);

/* Whether the watchdog ended a wait of mrr's; copies its sentence (without
 * "at event N") into why. */
bool rec_self_watch_fired(char *why, size_t len);

#endif
