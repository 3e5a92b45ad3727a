/* mrr-test: expect-signal=SIGSEGV no-pass-line=1 */
/* segv_death: writes a line, then stores through a NULL pointer with no
 * handler installed, so the kernel kills it with SIGSEGV. It never prints
 * PASS; the harness expects status 128+SIGSEGV natively, at record, and a
 * faithful replay of the death. */
#include "mrr_test.h"

int main(void)
{
	static const char msg[] = "about to store through NULL\n";
	volatile int *volatile null = NULL;

	mt_init();
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) != sizeof(msg) - 1)
		return 1;
	*null = 1;
	fprintf(stderr, "FAIL: still alive after storing through NULL\n");
	return 1;
}
