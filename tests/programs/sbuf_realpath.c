/* mrr-test: timeout=120 */
/* sbuf_realpath: realpath() of names through absolute, relative, chained
 * and looping links, with ".", "..", doubled and trailing slashes, of
 * files, directories, nothing and what the user may not search, into a
 * buffer and malloc'd. Each answer
 * (result, errno, the partial result glibc leaves in the buffer on a
 * failure, and errno after a success) is compared with libc's own
 * realpath, taken from libc.so.6 with dlsym, so that the preload
 * library's realpath (src/syscallbuf/realpath.c, buffered readlinks) must
 * answer exactly as glibc does; then the common cases run many times. */
#include "mrr_test.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>

#define ITERS 300

typedef char *(*realpath_fn)(const char *, char *);

static char base[PATH_MAX];
static uint64_t sum;

static void mix(const char *s)
{
	for (; *s; s++)
		sum = (sum ^ (unsigned char)*s) * 1099511628211ull;
}

/* One name, relative to base unless it starts with '/' or is "" */
static void check(realpath_fn libc_rp, const char *rel, int use_buf)
{
	char name[PATH_MAX * 2], a[PATH_MAX], b[PATH_MAX];
	char *ra, *rb;
	int ea, eb;

	if (!rel[0] || rel[0] == '/' || !strncmp(rel, "./", 2))
		snprintf(name, sizeof(name), "%s", rel);
	else
		snprintf(name, sizeof(name), "%s/%s", base, rel);
	memset(a, 'a', sizeof(a));
	memset(b, 'a', sizeof(b));
	errno = 12345;
	ra = realpath(name, use_buf ? a : NULL);
	ea = errno;
	errno = 12345;
	rb = libc_rp(name, use_buf ? b : NULL);
	eb = errno;
	MT_CHECK(!ra == !rb, "realpath(%s): %s, libc's %s", name,
		 ra ? ra : "NULL", rb ? rb : "NULL");
	MT_CHECK(ea == eb, "realpath(%s): errno %d, libc's %d", name, ea, eb);
	if (ra)
		MT_CHECK(!strcmp(ra, rb), "realpath(%s) = %s, libc's %s", name,
			 ra, rb);
	if (use_buf)
		MT_CHECK(
			!memcmp(a, b, sizeof(a)),
			"realpath(%s) left '%.64s' in the buffer, libc '%.64s'",
			name, a, b);
	printf("%s -> %s (errno %d)\n", rel,
	       ra ? ra + (strncmp(ra, base, strlen(base)) ? 0 : strlen(base))
		  : "NULL",
	       ra ? 0 : ea);
	if (!use_buf) {
		free(ra);
		free(rb);
	}
}

int main(void)
{
	static const char *const names[] = {
		"d/f",	     "abs/f",	   "rel/./f",
		"/chain//f", "up/d/f",	   "d/../d/f",
		"d/",	     "d/.",	   "d/..",
		"d/./",	     "d//",	   "fl",
		"d/f/",	     "d/f/.",	   "d/f/..",
		"d/f/./x",   "missing",	   "missing/x",
		"d/missing", "dangling",   "dangling/",
		"loop1",     "loop1/x",	   "d/f/x",
		"./d/f",     "d/../../..", "/",
		"//",	     "/.",	   "/..",
		"/../..",    "",	   "abs/",
		"rel/..",    "chain/../d", "dotlink/f",
		"noperm/x",  "noperm/x/y", "rel/missing/../f",
		"d/f/../f",
	};
	char cwd[PATH_MAX + 8], name[PATH_MAX * 2], out[PATH_MAX], top[64];
	realpath_fn libc_rp;
	void *libc;

	mt_init();
	libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	MT_CHECK(libc, "dlopen libc.so.6: %s", dlerror());
	libc_rp = (realpath_fn)dlsym(libc, "realpath");
	MT_CHECK(libc_rp, "dlsym realpath: %s", dlerror());

	snprintf(top, sizeof(top), "/tmp/mrr-sbuf_realpath-%d", (int)getpid());
	MT_SYS(mkdir(top, 0700));
	MT_SYS(chdir(top));
	MT_CHECK(getcwd(base, sizeof(base)), "getcwd");
	MT_SYS(mkdir("d", 0700));
	MT_SYS(close(MT_SYS(open("d/f", O_CREAT | O_WRONLY, 0600))));
	snprintf(cwd, sizeof(cwd), "%s/d", base);
	MT_SYS(symlink(cwd, "abs"));
	MT_SYS(symlink("d", "rel"));
	MT_SYS(symlink("rel", "chain"));
	MT_SYS(symlink("d/..", "up"));
	MT_SYS(symlink("d/f", "fl"));
	MT_SYS(symlink("nothing", "dangling"));
	MT_SYS(symlink("loop2", "loop1"));
	MT_SYS(symlink("loop1", "loop2"));
	MT_SYS(symlink("./d/../rel/.", "dotlink"));
	MT_SYS(mkdir("noperm", 0)); /* EACCES inside, unless root */

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		check(libc_rp, names[i], 1);
		check(libc_rp, names[i], 0);
	}
	for (int i = 0; i < ITERS; i++) {
		static const char *const hot[] = {"abs/f", "rel/./f", "up/d/f",
						  "d/../d/f"};

		for (int j = 0; j < 4; j++) {
			snprintf(name, sizeof(name), "%s/%s", base, hot[j]);
			MT_CHECK(realpath(name, out), "realpath(%s): %s", name,
				 strerror(errno));
			mix(out + strlen(base));
		}
	}
	for (const char *const *p =
		     (const char *const[]){"abs", "rel", "chain", "up", "fl",
					   "loop1", "loop2", "dangling",
					   "dotlink", NULL};
	     *p; p++)
		MT_SYS(unlink(*p));
	MT_SYS(rmdir("noperm"));
	MT_SYS(unlink("d/f"));
	MT_SYS(rmdir("d"));
	MT_SYS(chdir("/"));
	MT_SYS(rmdir(top));
	printf("sbuf_realpath: %d rounds, checksum %016llx\n", ITERS,
	       (unsigned long long)sum);
	mt_pass();
	return 0;
}
