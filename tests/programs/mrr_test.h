/* Helpers shared by the record/replay test programs in tests/programs/.
 *
 * Each program checks its own results: on the first failed check it prints
 * one line "FAIL file:line: what (detail)" on stderr and exits with status 1.
 * A program that finishes ends its stdout with the line "PASS" (mt_pass()).
 * stdout is line-buffered (mt_init()) so that output written before a fork or
 * an exec is never duplicated or lost, whatever stdout is.
 */
#ifndef MRR_TEST_H
#define MRR_TEST_H

/* Programs include this first: it asks for every glibc declaration. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fails unless cond holds; the printf-style rest describes what was seen. */
#define MT_CHECK(cond, ...)                                                    \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: %s (", __FILE__,          \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, ")\n");                                \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* Fails if a call that returns -1 (or MAP_FAILED) on error did so, naming the
 * call and errno. Evaluates to the call's result, of its type, otherwise. */
#define MT_SYS(expr)                                                           \
	({                                                                     \
		__typeof__(expr) mt_ret_ = (expr);                             \
		if ((long)mt_ret_ == -1) {                                     \
			fprintf(stderr, "FAIL %s:%d: %s failed: %s\n",         \
				__FILE__, __LINE__, #expr, strerror(errno));   \
			exit(1);                                               \
		}                                                              \
		mt_ret_;                                                       \
	})

static inline void mt_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static inline void mt_pass(void)
{
	printf("PASS\n");
	fflush(stdout);
}

#endif
