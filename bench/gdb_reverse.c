/* gdb_reverse: a write near the start, then N traced syscalls (argv[1],
 * default 100000), then done(): what bench/gdb_reverse.sh goes back over. */
#include <stdlib.h>
#include <unistd.h>

volatile int target;

__attribute__((noinline)) void done(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;

	target = 1;
	for (long i = 0; i < n; i++)
		getppid();
	done();
	return 0;
}
