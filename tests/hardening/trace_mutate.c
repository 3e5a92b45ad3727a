/* trace_mutate: edits a committed trace in place below the trace API, so
 * that only one field changes and every checksum still holds.
 *
 *   trace_mutate version DIR N
 *       Sets the header's format_version to N (trace-format/FORMAT.md
 *       section 4), recomputes the header checksum, and makes the commit
 *       (section 9), if there is one, repeat the new header checksum under
 *       a recomputed commit checksum. What is left is a well-formed trace
 *       of format version N.
 *
 * Exit status: 0 done, 1 error (one line on stderr), 2 usage.
 */
#include "trace/xxh64.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_VERSION_OFF	8
#define COMMIT_HEADER_CHECK_OFF 40
#define COMMIT_MSG_LEN_OFF	48
#define COMMIT_FIXED_LEN	52

static int slurp(const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return -EIO;
	}
	*data = malloc(size ? size : 1);
	if (!*data || fread(*data, 1, size, f) != (size_t)size) {
		free(*data);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*len = size;
	return 0;
}

static int spill(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -errno;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int set_version(const char *dir, uint32_t version)
{
	char path[4096];
	uint8_t *h, *c;
	size_t hlen, clen, msg;
	uint64_t check;
	int err;

	snprintf(path, sizeof(path), "%s/header", dir);
	err = slurp(path, &h, &hlen);
	if (err || hlen < 360) {
		fprintf(stderr, "trace_mutate: cannot read %s: %s\n", path,
			err ? strerror(-err) : "too short");
		return 1;
	}
	put_le(h + HEADER_VERSION_OFF, version, 4);
	check = trace_xxh64(h, hlen - 8, 0);
	put_le(h + hlen - 8, check, 8);
	err = spill(path, h, hlen);
	free(h);
	if (err) {
		fprintf(stderr, "trace_mutate: cannot write %s: %s\n", path,
			strerror(-err));
		return 1;
	}

	snprintf(path, sizeof(path), "%s/commit", dir);
	err = slurp(path, &c, &clen);
	if (err == -ENOENT)
		return 0;
	if (err || clen < COMMIT_FIXED_LEN + 8) {
		fprintf(stderr, "trace_mutate: cannot read %s: %s\n", path,
			err ? strerror(-err) : "too short");
		return 1;
	}
	msg = get_le(c + COMMIT_MSG_LEN_OFF, 4);
	if (COMMIT_FIXED_LEN + msg + 8 != clen) {
		fprintf(stderr, "trace_mutate: %s has a bad length\n", path);
		free(c);
		return 1;
	}
	put_le(c + COMMIT_HEADER_CHECK_OFF, check, 8);
	put_le(c + COMMIT_FIXED_LEN + msg,
	       trace_xxh64(c, COMMIT_FIXED_LEN + msg, 0), 8);
	err = spill(path, c, clen);
	free(c);
	if (err) {
		fprintf(stderr, "trace_mutate: cannot write %s: %s\n", path,
			strerror(-err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "version") == 0)
		return set_version(argv[2],
				   (uint32_t)strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: trace_mutate version DIR N\n");
	return 2;
}
