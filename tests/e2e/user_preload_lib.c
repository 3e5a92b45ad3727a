/* The user's own preload library for tests/e2e/user_preload.sh: it wraps
 * getpid (a call mrr's library buffers) and counts the calls, so that the
 * program can tell that this library is loaded and that its wrapper runs
 * before mrr's, as it would without mrr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/types.h>

__attribute__((visibility("default"))) int mrr_test_user_preload_calls;

__attribute__((visibility("default"))) pid_t getpid(void)
{
	static pid_t (*next)(void);

	if (!next)
		next = (pid_t(*)(void))dlsym(RTLD_NEXT, "getpid");
	mrr_test_user_preload_calls++;
	return next();
}
