/* name_to_handle_at with a handle too small: the kernel fails with
 * EOVERFLOW and writes the size it needs into the handle's header, and the
 * program sizes its next handle by it (LTP name_to_handle_at01,
 * open_by_handle_at01/02 diverged at replay: the size was not recorded, so
 * the replayed program asked for another). */
#define _GNU_SOURCE
#include "mrr_test.h"

#include <fcntl.h>

int main(void)
{
	struct file_handle probe = {0}, *fh;
	int mount_id = -1, r;

	mt_init();
	probe.handle_bytes = 0;
	r = name_to_handle_at(AT_FDCWD, "/", &probe, &mount_id, 0);
	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		printf("file handles: not supported here\n");
		printf("PASS\n");
		return 0;
	}
	MT_CHECK(r == -1 && errno == EOVERFLOW,
		 "a handle of 0 bytes: %d (%s), expected EOVERFLOW", r,
		 strerror(errno));
	MT_CHECK(probe.handle_bytes > 0 && probe.handle_bytes <= MAX_HANDLE_SZ,
		 "the kernel asks for %u bytes", probe.handle_bytes);
	/* what the program allocates depends on the size the kernel gave */
	fh = malloc(sizeof(*fh) + probe.handle_bytes);
	MT_CHECK(fh != NULL, "malloc");
	fh->handle_bytes = probe.handle_bytes;
	MT_SYS(name_to_handle_at(AT_FDCWD, "/", fh, &mount_id, 0));
	printf("handle: %u bytes, as asked\n",
	       fh->handle_bytes == probe.handle_bytes ? fh->handle_bytes : 0);
	free(fh);
	printf("PASS\n");
	return 0;
}
