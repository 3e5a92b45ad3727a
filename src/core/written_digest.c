/* The digest of a write's bytes (written_digest.h). */
#include "core/written_digest.h"

#include "trace/xxh64.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>

/* Linux's UIO_MAXIOV: the kernel fails a call with more vectors. */
#define DIGEST_IOV_MAX 1024

bool written_digest_call(long nr)
{
	return nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_writev ||
	       nr == SYS_pwritev || nr == SYS_pwritev2;
}

static int hash_range(struct tracee *t, struct trace_xxh64_state *st,
		      uint64_t addr, uint64_t len)
{
	char buf[65536];

	while (len) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		int err = tracee_read_all(t, addr, buf, n);

		if (err < 0)
			return err;
		trace_xxh64_update(st, buf, n);
		addr += n;
		len -= n;
	}
	return 0;
}

int written_digest(struct tracee *t, long nr, const uint64_t args[6],
		   uint64_t len, uint64_t *out)
{
	struct trace_xxh64_state st;
	uint64_t i, n;
	int err = 0;

	if (!written_digest_call(nr))
		return -EINVAL;
	trace_xxh64_init(&st, 0);
	if (nr == SYS_write || nr == SYS_pwrite64) {
		err = hash_range(t, &st, args[1], len);
	} else {
		if (args[2] > DIGEST_IOV_MAX)
			return -EINVAL;
		for (i = 0; i < args[2] && len && !err; i++) {
			struct iovec iov;

			err = tracee_read_all(t, args[1] + i * sizeof(iov),
					      &iov, sizeof(iov));
			if (err < 0)
				break;
			n = iov.iov_len < len ? iov.iov_len : len;
			err = hash_range(t, &st,
					 (uint64_t)(uintptr_t)iov.iov_base, n);
			len -= n;
		}
		if (!err && len)
			err = -EFAULT;
	}
	if (err < 0)
		return err;
	*out = trace_xxh64_digest(&st);
	return 0;
}
