/* fscrypt_prog DIR: the fscrypt ioctls whose _IOC direction says the
 * opposite of what the kernel does (LTP statx05, through e4crypt). DIR is
 * the root of an ext4 file system made with -O encrypt. The program reads
 * the file system's password salt (FS_IOC_GET_ENCRYPTION_PWSALT, _IOW but
 * filled by the kernel) into a canary buffer, makes DIR/enc, gives it a v1
 * policy (FS_IOC_SET_ENCRYPTION_POLICY, _IOR but only read) and reads the
 * policy back (FS_IOC_GET_ENCRYPTION_POLICY, _IOW but filled). It prints
 * the salt and the policy: the replay must print the recorded ones. */
#include <errno.h>
#include <linux/fscrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

static void hex(const char *what, const unsigned char *p, size_t n)
{
	size_t i;

	printf("%s ", what);
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct fscrypt_policy_v1 set = {
		.version = FSCRYPT_POLICY_V1,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.master_key_descriptor = {1, 2, 3, 4, 5, 6, 7, 8},
	};
	struct fscrypt_policy_v1 got;
	unsigned char salt[16], canary[16];
	char sub[4096];
	int fd, dfd;

	if (argc != 2) {
		fprintf(stderr, "usage: fscrypt_prog DIR\n");
		return 2;
	}
	memset(canary, 0xa5, sizeof(canary));
	memcpy(salt, canary, sizeof(salt));
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || ioctl(fd, FS_IOC_GET_ENCRYPTION_PWSALT, salt) < 0) {
		printf("FAIL: FS_IOC_GET_ENCRYPTION_PWSALT: %s\n",
		       strerror(errno));
		return 1;
	}
	if (!memcmp(salt, canary, sizeof(salt))) {
		printf("FAIL: the salt is the canary\n");
		return 1;
	}
	hex("salt", salt, sizeof(salt));
	snprintf(sub, sizeof(sub), "%s/enc", argv[1]);
	if (mkdir(sub, 0700) < 0 && errno != EEXIST) {
		printf("FAIL: mkdir %s: %s\n", sub, strerror(errno));
		return 1;
	}
	dfd = open(sub, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || ioctl(dfd, FS_IOC_SET_ENCRYPTION_POLICY, &set) < 0) {
		printf("FAIL: FS_IOC_SET_ENCRYPTION_POLICY: %s\n",
		       strerror(errno));
		return 1;
	}
	memset(&got, 0xa5, sizeof(got));
	if (ioctl(dfd, FS_IOC_GET_ENCRYPTION_POLICY, &got) < 0 ||
	    memcmp(&got, &set, sizeof(got))) {
		printf("FAIL: FS_IOC_GET_ENCRYPTION_POLICY: %s\n",
		       strerror(errno));
		return 1;
	}
	hex("policy", (const unsigned char *)&got, sizeof(got));
	printf("PASS\n");
	return 0;
}
