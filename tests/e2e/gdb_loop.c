/* gdb_loop: many traced syscalls, for interrupting a replay with ^C. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 20000; i++)
		getppid();
	puts("loop done");
	return 0;
}
