/* loop_device: what a test suite does to get a scratch file system (LTP's
 * tst_device): a free loop device from /dev/loop-control, a backing file
 * attached to it, its status set and read back, the block-size queries
 * mkfs makes, a read of the device, then mount and umount of a tmpfs.
 * Every out-parameter is read into a buffer filled with a canary, and the
 * bytes after what the kernel writes must keep it. As an unprivileged user
 * /dev/loop-control cannot be opened and the program says so and passes
 * (the failures are recorded and replayed like the rest). The replay
 * touches no device and mounts nothing: it hands back what the kernel
 * answered at record.
 */
#include "mrr_test.h"

#include <fcntl.h>
#include <linux/cdrom.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define BACKING_SIZE (1 << 20)

static int attach(int ctl, const char *backing, char *dev, size_t devlen)
{
	struct loop_config cfg;
	int tries, n, fd, bfd;

	bfd = MT_SYS(open(backing, O_RDWR));
	for (tries = 0; tries < 20; tries++) {
		n = MT_SYS(ioctl(ctl, LOOP_CTL_GET_FREE));
		snprintf(dev, devlen, "/dev/loop%d", n);
		fd = open(dev, O_RDWR);
		if (fd < 0) {
			printf("open %s: %s\n", dev, strerror(errno));
			continue;
		}
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (uint32_t)bfd;
		cfg.block_size = 512;
		if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0) {
			close(bfd);
			return fd;
		}
		/* another process took it between the two calls */
		MT_CHECK(errno == EBUSY, "LOOP_CONFIGURE: %s", strerror(errno));
		close(fd);
	}
	MT_CHECK(0, "no free loop device after %d tries", tries);
	return -1;
}

static void queries(int fd)
{
	struct loop_info64 st64;
	struct loop_info st;
	uint64_t size64;
	unsigned long size;
	long l;
	int i;

	memset(&st64, 0, sizeof(st64));
	snprintf((char *)st64.lo_file_name, sizeof(st64.lo_file_name),
		 "mrr-loop-test");
	st64.lo_flags = LO_FLAGS_AUTOCLEAR;
	MT_SYS(ioctl(fd, LOOP_SET_STATUS64, &st64));
	memset(&st64, 0xa5, sizeof(st64));
	MT_SYS(ioctl(fd, LOOP_GET_STATUS64, &st64));
	MT_CHECK(!strcmp((char *)st64.lo_file_name, "mrr-loop-test"), "%s",
		 (char *)st64.lo_file_name);
	MT_CHECK(st64.lo_flags & LO_FLAGS_AUTOCLEAR, "flags 0x%x",
		 st64.lo_flags);
	printf("LOOP_GET_STATUS64: number %u, flags 0x%x, name %s\n",
	       st64.lo_number, st64.lo_flags, (char *)st64.lo_file_name);
	memset(&st, 0xa5, sizeof(st));
	MT_SYS(ioctl(fd, LOOP_GET_STATUS, &st));
	MT_CHECK((unsigned)st.lo_number == st64.lo_number, "%d", st.lo_number);
	printf("LOOP_GET_STATUS: number %d\n", st.lo_number);

	size64 = 0;
	MT_SYS(ioctl(fd, BLKGETSIZE64, &size64));
	MT_CHECK(size64 == BACKING_SIZE, "%llu", (unsigned long long)size64);
	MT_SYS(ioctl(fd, BLKGETSIZE, &size));
	MT_CHECK(size == BACKING_SIZE / 512, "%lu", size);
	MT_SYS(ioctl(fd, LOOP_SET_BLOCK_SIZE, 4096));
	MT_SYS(ioctl(fd, BLKSSZGET, &i));
	MT_CHECK(i == 4096, "BLKSSZGET %d", i);
	printf("BLKGETSIZE64 %llu, BLKSSZGET %d\n", (unsigned long long)size64,
	       i);

	/* the queries mkfs and libblkid make: 4- and 2-byte answers into
	 * 8-byte canaries, which must keep their upper bytes */
	{
		static const struct {
			unsigned long req;
			unsigned int bytes;
			const char *name;
		} q[] = {
			{BLKPBSZGET, 4, "BLKPBSZGET"},
			{BLKIOMIN, 4, "BLKIOMIN"},
			{BLKIOOPT, 4, "BLKIOOPT"},
			{BLKALIGNOFF, 4, "BLKALIGNOFF"},
			{BLKDISCARDZEROES, 4, "BLKDISCARDZEROES"},
			{BLKROTATIONAL, 2, "BLKROTATIONAL"},
			{BLKSECTGET, 2, "BLKSECTGET"},
			{BLKRAGET, 8, "BLKRAGET"},
			{BLKFRAGET, 8, "BLKFRAGET"},
		};
		for (i = 0; i < (int)(sizeof(q) / sizeof(q[0])); i++) {
			uint64_t v = 0x5a5a5a5a5a5a5a5aull;

			if (ioctl(fd, q[i].req, &v) < 0) {
				printf("%s: %s\n", q[i].name, strerror(errno));
				continue;
			}
			if (q[i].bytes < 8)
				MT_CHECK(v >> (q[i].bytes * 8) ==
						 0x5a5a5a5a5a5a5a5aull >>
							 (q[i].bytes * 8),
					 "%s wrote past %u bytes: 0x%llx",
					 q[i].name, q[i].bytes,
					 (unsigned long long)v);
			printf("%s 0x%llx\n", q[i].name, (unsigned long long)v);
		}
	}
	l = ioctl(fd, CDROM_GET_CAPABILITY, 0);
	printf("CDROM_GET_CAPABILITY: %ld (%s)\n", l,
	       l < 0 ? strerror(errno) : "ok");
	MT_SYS(ioctl(fd, LOOP_SET_DIRECT_IO, 0));
	MT_SYS(ioctl(fd, LOOP_SET_CAPACITY, 0));
}

static void read_device(int fd)
{
	char buf[4096];

	MT_SYS(ioctl(fd, BLKFLSBUF, 0));
	MT_CHECK(pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf), "%s",
		 strerror(errno));
	MT_CHECK(!memcmp(buf, "mrr loop block", 14), "%.14s", buf);
	printf("read the backing file's first block through the device\n");
}

static void mount_tmpfs(void)
{
	char dir[] = "/tmp/mrr-mnt-XXXXXX", path[64];
	struct stat st;
	int fd;

	MT_SYS(mkdtemp(dir) ? 0 : -1);
	if (mount("mrr-test", dir, "tmpfs", 0, "size=64k") < 0) {
		printf("mount: %s\n", strerror(errno));
		MT_SYS(rmdir(dir));
		return;
	}
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = MT_SYS(open(path, O_CREAT | O_RDWR, 0600));
	MT_SYS(write(fd, "mounted", 7));
	MT_SYS(fstat(fd, &st));
	MT_CHECK(st.st_size == 7, "%lld", (long long)st.st_size);
	close(fd);
	MT_SYS(umount2(dir, MNT_DETACH));
	MT_CHECK(stat(path, &st) < 0 && errno == ENOENT,
		 "the file is still there after umount");
	MT_SYS(rmdir(dir));
	printf("mounted a tmpfs, wrote a file in it, unmounted it\n");
}

int main(void)
{
	char backing[] = "/tmp/mrr-loop-XXXXXX", dev[32];
	int ctl, fd, bfd;

	mt_init();
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("/dev/loop-control: %s\n", strerror(errno));
		MT_CHECK(mount("mrr-test", "/tmp", "tmpfs", 0, NULL) < 0,
			 "an unprivileged mount succeeded");
		printf("mount: %s\n", strerror(errno));
		mt_pass();
		return 0;
	}
	bfd = MT_SYS(mkstemp(backing));
	MT_SYS(ftruncate(bfd, BACKING_SIZE));
	MT_SYS(pwrite(bfd, "mrr loop block", 14, 0));
	close(bfd);
	fd = attach(ctl, backing, dev, sizeof(dev));
	MT_SYS(unlink(backing));
	queries(fd);
	read_device(fd);
	MT_SYS(ioctl(fd, LOOP_CLR_FD, 0));
	close(fd);
	close(ctl);
	mount_tmpfs();
	mt_pass();
	return 0;
}
