/* hello: the smallest recording. Writes to stdout and stderr both with
 * write(2) and with stdio, and checks each write's count. */
#include "mrr_test.h"

int main(void)
{
	static const char out[] = "hello from write(1)\n";
	static const char err[] = "hello from write(2)\n";
	ssize_t n;

	mt_init();
	n = write(STDOUT_FILENO, out, sizeof(out) - 1);
	MT_CHECK(n == (ssize_t)sizeof(out) - 1, "write to stdout returned %zd",
		 n);
	n = write(STDERR_FILENO, err, sizeof(err) - 1);
	MT_CHECK(n == (ssize_t)sizeof(err) - 1, "write to stderr returned %zd",
		 n);
	n = printf("hello from printf: %d %s\n", 42, "forty-two");
	MT_CHECK(n == (ssize_t)strlen("hello from printf: 42 forty-two\n"),
		 "printf returned %zd", n);
	n = fprintf(stderr, "hello from fprintf(stderr)\n");
	MT_CHECK(n == (ssize_t)strlen("hello from fprintf(stderr)\n"),
		 "fprintf returned %zd", n);
	mt_pass();
	return 0;
}
