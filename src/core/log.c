#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mrr_debug_enabled = -1;

void mrr_err(const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mrr: %s\n", buf);
}

void mrr_debug(const char *fmt, ...)
{
	va_list ap;

	if (mrr_debug_enabled < 0) {
		const char *v = getenv("MRR_LOG");
		mrr_debug_enabled = v && strcmp(v, "debug") == 0;
	}
	if (!mrr_debug_enabled)
		return;
	va_start(ap, fmt);
	fputs("mrr[debug]: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void mrr_fatal_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mrr: internal error at %s:%d: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}
