/* realpath() for the preload library: glibc's realpath reads each
 * component with its own internal readlink, which a symbol-replacing
 * library cannot reach, so every component cost a traced syscall (two
 * ptrace stops). cc1 resolves each include directory this way: 5,000 of
 * the 14,000 traced calls of a make run were these readlinks.
 *
 * This realpath walks the name the same way glibc 2.33 and later do (one
 * readlink per component; EINVAL means "not a link"; a component followed
 * by a trailing "/", "/." or "/.." must be a directory) with buffered
 * readlink and access calls. A readlink error other than EINVAL ends it
 * with that errno, and for ENOENT and EACCES leaves the name up to the
 * failed component in resolved, as glibc does. Every case it does not
 * settle itself goes to libc's own realpath (found with
 * dlsym(RTLD_NEXT)), which then makes its traced calls as before:
 *   - a relative name, NULL or "" (libc reads the working directory);
 *   - a failed directory check, or a readlink error where one is due;
 *   - more than 40 links (ELOOP), a result or link longer than PATH_MAX;
 *   - a thread that cannot buffer now (no buffer, or inside a wrapper).
 * So a program sees what glibc's realpath gives it: the result, the errno
 * of a failure, the partial name, and on success the errno glibc's last
 * failed readlink left (EINVAL, when any component was not a link). The
 * decisions depend only on
 * the calls' results, which the replay feeds back, so the replay takes the
 * same path. Not async-signal-safe, as libc's is not: the first fallback
 * calls dlsym. Uses 8 KiB of stack.
 */
#include "syscallbuf/calls.h"
#include "syscallbuf/preload.h"

#include <asm/unistd.h>
#include <linux/errno.h>

#define SB_EXPORT __attribute__((visibility("default")))

#define SB_PATH_MAX  4096 /* Linux's PATH_MAX, with the NUL */
#define SB_MAX_LINKS 40	  /* glibc's __eloop_threshold() on Linux */
#define SB_RTLD_NEXT ((void *)-1l)
#define SB_FALLBACK  ((char *)-1l)

/* Weak: a program without them keeps the fallback-free path (below). */
extern int *__errno_location(void) __attribute__((weak));
extern void *dlsym(void *handle, const char *name) __attribute__((weak));
extern void *malloc(unsigned long n) __attribute__((weak));

typedef char *(*sb_realpath_fn)(const char *name, char *resolved);

static sb_realpath_fn sb_libc_realpath(void)
{
	static sb_realpath_fn fn;

	if (!fn && dlsym)
		fn = (sb_realpath_fn)dlsym(SB_RTLD_NEXT, "realpath");
	return fn;
}

static unsigned long sb_strlen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static void sb_copy(char *dst, const char *src, unsigned long n)
{
	if (dst < src) {
		for (unsigned long i = 0; i < n; i++)
			dst[i] = src[i];
	} else {
		while (n--)
			dst[n] = src[n];
	}
}

static long sb_readlink(const char *path, char *buf, unsigned long size)
{
	struct sb_call c = {.nr = __NR_readlink,
			    .args = {(long)path, (long)buf, (long)size}};

	c.rule = MRR_SB_RESULT;
	c.out = buf;
	c.out_len = size;
	return sb_run(&c);
}

static long sb_exists(const char *path)
{
	struct sb_call c = {.nr = __NR_access, .args = {(long)path, 0}};

	return sb_run(&c);
}

/* Whether what follows a component (at end) makes glibc check that the
 * component is a directory: a trailing "/" or "/.", or "/.." anywhere
 * after it ("/./x" needs no check, as in glibc). */
static int sb_needs_dir(const char *end)
{
	while (*end == '/') {
		while (*end == '/')
			end++;
		if (!*end)
			return 1;
		if (*end != '.')
			return 0;
		end++;
		if (!*end || (*end == '.' && (!end[1] || end[1] == '/')))
			return 1;
	}
	return 0;
}

/* The walk. Returns the result (resolved, or a malloc'd copy), NULL with
 * *err set (a readlink error, or malloc failed), or SB_FALLBACK when libc
 * must decide. */
static char *sb_walk(const char *name, char *resolved, int *err, int *not_link)
{
	char rname[SB_PATH_MAX];
	char pend[SB_PATH_MAX]; /* the part still to walk, at its end */
	unsigned long len = sb_strlen(name), dest = 1, links = 0;
	char *p, *end, *out;
	long n;

	if (len + 1 > sizeof(pend))
		return SB_FALLBACK;
	p = pend + sizeof(pend) - (len + 1);
	sb_copy(p, name, len + 1);
	rname[0] = '/';
	rname[1] = 0;
	for (;;) {
		unsigned long clen;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		for (end = p; *end && *end != '/'; end++)
			;
		clen = (unsigned long)(end - p);
		if (clen == 1 && p[0] == '.') {
			p = end;
			continue;
		}
		if (clen == 2 && p[0] == '.' && p[1] == '.') {
			while (dest > 1 && rname[dest - 1] != '/')
				dest--;
			if (dest > 1)
				dest--;
			rname[dest] = 0;
			p = end;
			continue;
		}
		if (dest + (dest > 1) + clen + 1 > sizeof(rname))
			return SB_FALLBACK;
		if (dest > 1)
			rname[dest++] = '/';
		sb_copy(rname + dest, p, clen);
		dest += clen;
		rname[dest] = 0;
		/* The link's target goes into the free room before end,
		 * then right before end, where it continues the walk. */
		n = sb_readlink(rname, pend, (unsigned long)(end - pend));
		if (n >= 0) {
			int absolute = n > 0 && pend[0] == '/';

			if (++links > SB_MAX_LINKS || n >= end - pend)
				return SB_FALLBACK;
			sb_copy(end - n, pend, (unsigned long)n);
			p = end - n;
			if (absolute) {
				dest = 1;
			} else {
				while (dest > 1 && rname[dest - 1] != '/')
					dest--;
				if (dest > 1)
					dest--;
			}
			rname[dest] = 0;
			continue;
		}
		if (n != -EINVAL) {
			if (sb_needs_dir(end))
				return SB_FALLBACK;
			/* glibc leaves the name up to the component that
			 * failed in resolved, for these two errors only */
			*err = (int)-n;
			if (resolved && (n == -ENOENT || n == -EACCES))
				sb_copy(resolved, rname, dest + 1);
			return 0;
		}
		*not_link = 1;
		if (sb_needs_dir(end)) {
			if (dest + 2 > sizeof(rname))
				return SB_FALLBACK;
			rname[dest] = '/';
			rname[dest + 1] = 0;
			n = sb_exists(rname);
			rname[dest] = 0;
			if (n != 0)
				return SB_FALLBACK;
		}
		p = end;
	}
	out = resolved;
	if (!out) {
		if (!malloc)
			return SB_FALLBACK;
		out = malloc(dest + 1);
		if (!out) {
			*err = ENOMEM;
			return 0;
		}
	}
	sb_copy(out, rname, dest + 1);
	return out;
}

SB_EXPORT char *realpath(const char *name, char *resolved)
{
	sb_realpath_fn libc = sb_libc_realpath();
	int err = 0, not_link = 0;
	char *r;

	if (!name || name[0] != '/' || !sb_buffering()) {
		if (libc)
			return libc(name, resolved);
		r = SB_FALLBACK;
	} else {
		r = sb_walk(name, resolved, &err, &not_link);
		if (r == SB_FALLBACK && libc)
			return libc(name, resolved);
	}
	if (r == SB_FALLBACK) {
		/* No libc realpath to ask (no dlsym in this process): the
		 * closest answer mrr can give without one. */
		err = !name ? EINVAL : !name[0] ? ENOENT : ENAMETOOLONG;
		r = 0;
	}
	if (__errno_location && (err || not_link))
		*__errno_location() = err ? err : EINVAL;
	return r;
}
