/* user_preload: a program run with the user's own LD_PRELOAD library
 * (tests/e2e/user_preload.sh sets MRR_TEST_WANT_USER_PRELOAD=1 and
 * LD_PRELOAD to tests/e2e/user_preload_lib.c's library) must find that
 * library loaded under mrr too, and its getpid wrapper running, both at
 * record and at replay. Without the variable (the prog/ harness) it checks
 * that no such library is there.
 */
#include "mrr_test.h"

#include <dlfcn.h>

int main(void)
{
	const char *want = getenv("MRR_TEST_WANT_USER_PRELOAD");
	int *calls = dlsym(RTLD_DEFAULT, "mrr_test_user_preload_calls");
	pid_t pid;
	int before;

	mt_init();
	if (!want || strcmp(want, "1") != 0) {
		MT_CHECK(calls == NULL, "a user preload library is loaded");
		printf("user preload: none asked for, none loaded\n");
		mt_pass();
		return 0;
	}
	MT_CHECK(calls != NULL,
		 "the user's LD_PRELOAD library is missing "
		 "(LD_PRELOAD=%s)",
		 getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
	before = *calls;
	pid = getpid();
	MT_CHECK(pid > 0, "getpid %d", (int)pid);
	MT_CHECK(*calls == before + 1, "the library's getpid ran %d times",
		 *calls - before);
	printf("user preload: loaded, its getpid wrapper runs\n");
	mt_pass();
	return 0;
}
