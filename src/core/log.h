/* Messages to the user and internal-invariant failures. */
#ifndef MRR_CORE_LOG_H
#define MRR_CORE_LOG_H

/* One sentence for the user, prefixed "mrr: ", newline added. */
void mrr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Verbose diagnostics, printed only when MRR_LOG=debug. */
void mrr_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int mrr_debug_enabled;

/* An internal invariant broke: prints file:line and the message, aborts. */
void mrr_fatal_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
#define mrr_fatal(...) mrr_fatal_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
