/* spin_on_result: loops for ever when getppid() returns 1, as a replay
 * fed a changed result does; otherwise prints a line and exits. For the
 * watchdog's note on a task that runs without reaching its next event. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	volatile unsigned long turns = 0;

	if (syscall(SYS_getppid) == 1)
		for (;;)
			turns++;
	puts("not spinning");
	return 0;
}
