/* Strings, escaping and hex output for the dumper. */
#include "dump/internal.h"
#include "syscalls/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static bool sb_grow(struct sbuf *b, size_t more)
{
	size_t need = b->len + more + 1, ncap;
	char *p;

	if (need <= b->cap)
		return true;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap *= 2;
	p = realloc(b->s, ncap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->s = p;
	b->cap = ncap;
	return true;
}

void sb_put(struct sbuf *b, const char *s, size_t len)
{
	if (!sb_grow(b, len))
		return;
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = 0;
}

void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0 || !sb_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = 0;
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid.
 * Overlong forms, surrogates and values past U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void sb_json_str(struct sbuf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	sb_put(b, "\"", 1);
	while (i < len) {
		unsigned char c = u[i];

		switch (c) {
		case '"':
			sb_puts(b, "\\\"");
			break;
		case '\\':
			sb_puts(b, "\\\\");
			break;
		case '\n':
			sb_puts(b, "\\n");
			break;
		case '\r':
			sb_puts(b, "\\r");
			break;
		case '\t':
			sb_puts(b, "\\t");
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				sb_printf(b, "\\u%04x", c);
				break;
			}
			n = utf8_len(u + i, len - i);
			if (!n) {
				/* not UTF-8: keep the byte's value visible */
				sb_printf(b, "\\u%04x", c);
				break;
			}
			sb_put(b, s + i, n);
			i += n;
			continue;
		}
		i++;
	}
	sb_put(b, "\"", 1);
}

void mrr_dump_json_string(FILE *out, const char *s, size_t len)
{
	struct sbuf b = {0};

	sb_json_str(&b, s, len);
	if (b.len > 2)
		fwrite(b.s + 1, 1, b.len - 2, out);
	sb_free(&b);
}

void sb_c_str(struct sbuf *b, const char *s, size_t len, size_t max)
{
	size_t i, n = len < max ? len : max;

	sb_put(b, "\"", 1);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			sb_puts(b, "\\\"");
			break;
		case '\\':
			sb_puts(b, "\\\\");
			break;
		case '\n':
			sb_puts(b, "\\n");
			break;
		case '\t':
			sb_puts(b, "\\t");
			break;
		default:
			if (c < 0x20 || c >= 0x7f)
				sb_printf(b, "\\x%02x", c);
			else
				sb_put(b, (const char *)&c, 1);
		}
	}
	sb_put(b, "\"", 1);
	if (n < len)
		sb_puts(b, "...");
}

char *mrr_dump_wait_status(int64_t status, char *buf, size_t buflen)
{
	int st = (int)status;
	const char *name;

	if (status < 0 || status > 0xffff) {
		snprintf(buf, buflen, "status 0x%llx",
			 (unsigned long long)status);
	} else if (WIFEXITED(st)) {
		snprintf(buf, buflen, "exited %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		name = mrr_signal_name(WTERMSIG(st));
		if (name)
			snprintf(buf, buflen, "killed by %s%s", name,
				 WCOREDUMP(st) ? " (core dumped)" : "");
		else
			snprintf(buf, buflen, "killed by signal %d%s",
				 WTERMSIG(st),
				 WCOREDUMP(st) ? " (core dumped)" : "");
	} else {
		snprintf(buf, buflen, "status 0x%x", st);
	}
	return buf;
}

void mrr_dump_hex(FILE *out, const char *indent, uint64_t addr,
		  const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t off, i;

	bool starred = false;

	for (off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;

		/* like hexdump -C: a run of lines equal to the one before
		 * prints as one "*" (the last line always prints) */
		if (off && n == 16 && off + 16 < len &&
		    !memcmp(p + off, p + off - 16, 16)) {
			if (!starred)
				fprintf(out, "%s*\n", indent);
			starred = true;
			continue;
		}
		starred = false;

		fprintf(out, "%s%016llx ", indent,
			(unsigned long long)(addr + off));
		for (i = 0; i < 16; i++) {
			if (i == 8)
				fputc(' ', out);
			if (i < n)
				fprintf(out, " %02x", p[off + i]);
			else
				fputs("   ", out);
		}
		fputs("  |", out);
		for (i = 0; i < n; i++)
			fputc(p[off + i] >= 0x20 && p[off + i] < 0x7f
				      ? p[off + i]
				      : '.',
			      out);
		fputs("|\n", out);
	}
}
