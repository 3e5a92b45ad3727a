/* What ioctl requests write through their argument. Requests built with
 * the _IOC macros carry a direction and a size: _IOC_READ ones write
 * _IOC_SIZE bytes at the argument. The old-style numbers of the tty, vt,
 * console, socket, block and cdrom families carry neither, so they are
 * listed here; an unlisted number of those families is refused by the
 * recorder rather than replayed without what it wrote. Sizes are x86-64
 * ones (struct termios 36, struct termio 18, struct ifreq 40, struct
 * vt_stat 6, struct serial_struct 72). */
#include "syscalls/table.h"

#include <stddef.h>

struct ioctl_desc {
	uint32_t req;
	uint8_t kind; /* enum mrr_ioctl_out */
	uint32_t size;
	const char *name;
};

#define OUT(r, s, n)                                                           \
	{                                                                      \
		(r), MRR_IOCTL_FIXED, (s), (n)                                 \
	}
#define NONE(r, n)                                                             \
	{                                                                      \
		(r), MRR_IOCTL_NONE, 0, (n)                                    \
	}
#define IFREQ(r, n) OUT(r, 40, n)

static const struct ioctl_desc ioctls[] = {
	/* tty: asm-generic/ioctls.h */
	OUT(0x5401, 36, "TCGETS"),
	NONE(0x5402, "TCSETS"),
	NONE(0x5403, "TCSETSW"),
	NONE(0x5404, "TCSETSF"),
	OUT(0x5405, 18, "TCGETA"),
	NONE(0x5406, "TCSETA"),
	NONE(0x5407, "TCSETAW"),
	NONE(0x5408, "TCSETAF"),
	NONE(0x5409, "TCSBRK"),
	NONE(0x540A, "TCXONC"),
	NONE(0x540B, "TCFLSH"),
	NONE(0x540C, "TIOCEXCL"),
	NONE(0x540D, "TIOCNXCL"),
	NONE(0x540E, "TIOCSCTTY"),
	OUT(0x540F, 4, "TIOCGPGRP"),
	NONE(0x5410, "TIOCSPGRP"),
	OUT(0x5411, 4, "TIOCOUTQ"),
	NONE(0x5412, "TIOCSTI"),
	OUT(0x5413, 8, "TIOCGWINSZ"),
	NONE(0x5414, "TIOCSWINSZ"),
	OUT(0x5415, 4, "TIOCMGET"),
	NONE(0x5416, "TIOCMBIS"),
	NONE(0x5417, "TIOCMBIC"),
	NONE(0x5418, "TIOCMSET"),
	OUT(0x5419, 4, "TIOCGSOFTCAR"),
	NONE(0x541A, "TIOCSSOFTCAR"),
	OUT(0x541B, 4, "FIONREAD"),
	NONE(0x541D, "TIOCCONS"),
	OUT(0x541E, 72, "TIOCGSERIAL"),
	NONE(0x541F, "TIOCSSERIAL"),
	NONE(0x5420, "TIOCPKT"),
	NONE(0x5421, "FIONBIO"),
	NONE(0x5422, "TIOCNOTTY"),
	NONE(0x5423, "TIOCSETD"),
	OUT(0x5424, 4, "TIOCGETD"),
	NONE(0x5425, "TCSBRKP"),
	NONE(0x5427, "TIOCSBRK"),
	NONE(0x5428, "TIOCCBRK"),
	OUT(0x5429, 4, "TIOCGSID"),
	NONE(0x5437, "TIOCVHANGUP"),
	NONE(0x5441, "TIOCGPTPEER"),
	NONE(0x5450, "FIONCLEX"),
	NONE(0x5451, "FIOCLEX"),
	NONE(0x5452, "FIOASYNC"),
	NONE(0x5453, "TIOCSERCONFIG"),
	OUT(0x5456, 36, "TIOCGLCKTRMIOS"),
	NONE(0x5457, "TIOCSLCKTRMIOS"),
	OUT(0x5459, 4, "TIOCSERGETLSR"),
	NONE(0x545C, "TIOCMIWAIT"),
	OUT(0x545D, 80, "TIOCGICOUNT"),
	OUT(0x5460, 8, "FIOQSIZE"),
	/* virtual terminals: linux/vt.h */
	OUT(0x5600, 4, "VT_OPENQRY"),
	OUT(0x5601, 8, "VT_GETMODE"),
	NONE(0x5602, "VT_SETMODE"),
	OUT(0x5603, 6, "VT_GETSTATE"),
	NONE(0x5604, "VT_SENDSIG"),
	NONE(0x5605, "VT_RELDISP"),
	NONE(0x5606, "VT_ACTIVATE"),
	NONE(0x5607, "VT_WAITACTIVE"),
	NONE(0x5608, "VT_DISALLOCATE"),
	NONE(0x5609, "VT_RESIZE"),
	NONE(0x560A, "VT_RESIZEX"),
	NONE(0x560B, "VT_LOCKSWITCH"),
	NONE(0x560C, "VT_UNLOCKSWITCH"),
	OUT(0x560D, 2, "VT_GETHIFONTMASK"),
	OUT(0x560E, 28, "VT_WAITEVENT"),
	NONE(0x560F, "VT_SETACTIVATE"),
	/* the console keyboard and display: linux/kd.h */
	NONE(0x4B2F, "KIOCSOUND"),
	NONE(0x4B30, "KDMKTONE"),
	OUT(0x4B31, 1, "KDGETLED"),
	NONE(0x4B32, "KDSETLED"),
	OUT(0x4B33, 1, "KDGKBTYPE"),
	NONE(0x4B34, "KDADDIO"),
	NONE(0x4B35, "KDDELIO"),
	NONE(0x4B36, "KDENABIO"),
	NONE(0x4B37, "KDDISABIO"),
	NONE(0x4B3A, "KDSETMODE"),
	OUT(0x4B3B, 4, "KDGETMODE"),
	OUT(0x4B40, 256, "GIO_SCRNMAP"),
	NONE(0x4B41, "PIO_SCRNMAP"),
	OUT(0x4B44, 4, "KDGKBMODE"),
	NONE(0x4B45, "KDSKBMODE"),
	OUT(0x4B46, 4, "KDGKBENT"),
	NONE(0x4B47, "KDSKBENT"),
	OUT(0x4B48, 513, "KDGKBSENT"),
	NONE(0x4B49, "KDSKBSENT"),
	OUT(0x4B4A, 772, "KDGKBDIACR"),
	NONE(0x4B4B, "KDSKBDIACR"),
	OUT(0x4B4C, 8, "KDGETKEYCODE"),
	NONE(0x4B4D, "KDSETKEYCODE"),
	NONE(0x4B4E, "KDSIGACCEPT"),
	OUT(0x4B60, 8192, "GIO_FONT"),
	NONE(0x4B61, "PIO_FONT"),
	OUT(0x4B62, 4, "KDGKBMETA"),
	NONE(0x4B63, "KDSKBMETA"),
	OUT(0x4B64, 1, "KDGKBLED"),
	NONE(0x4B65, "KDSKBLED"),
	OUT(0x4B69, 512, "GIO_UNISCRNMAP"),
	NONE(0x4B6A, "PIO_UNISCRNMAP"),
	NONE(0x4B68, "PIO_UNIMAPCLR"),
	OUT(0x4B70, 48, "GIO_CMAP"),
	NONE(0x4B71, "PIO_CMAP"),
	OUT(0x4BFA, 3076, "KDGKBDIACRUC"),
	NONE(0x4BFB, "KDSKBDIACRUC"),
	/* sockets: linux/sockios.h; struct ifreq is 40 bytes */
	NONE(0x8901, "FIOSETOWN"),
	NONE(0x8902, "SIOCSPGRP"),
	OUT(0x8903, 4, "FIOGETOWN"),
	OUT(0x8904, 4, "SIOCGPGRP"),
	OUT(0x8905, 4, "SIOCATMARK"),
	OUT(0x8906, 16, "SIOCGSTAMP"),
	OUT(0x8907, 16, "SIOCGSTAMPNS"),
	NONE(0x890B, "SIOCADDRT"),
	NONE(0x890C, "SIOCDELRT"),
	IFREQ(0x8910, "SIOCGIFNAME"),
	NONE(0x8911, "SIOCSIFLINK"),
	{0x8912, MRR_IOCTL_IFCONF, 16, "SIOCGIFCONF"},
	IFREQ(0x8913, "SIOCGIFFLAGS"),
	NONE(0x8914, "SIOCSIFFLAGS"),
	IFREQ(0x8915, "SIOCGIFADDR"),
	NONE(0x8916, "SIOCSIFADDR"),
	IFREQ(0x8917, "SIOCGIFDSTADDR"),
	NONE(0x8918, "SIOCSIFDSTADDR"),
	IFREQ(0x8919, "SIOCGIFBRDADDR"),
	NONE(0x891A, "SIOCSIFBRDADDR"),
	IFREQ(0x891B, "SIOCGIFNETMASK"),
	NONE(0x891C, "SIOCSIFNETMASK"),
	IFREQ(0x891D, "SIOCGIFMETRIC"),
	NONE(0x891E, "SIOCSIFMETRIC"),
	IFREQ(0x8921, "SIOCGIFMTU"),
	NONE(0x8922, "SIOCSIFMTU"),
	NONE(0x8923, "SIOCSIFNAME"),
	NONE(0x8924, "SIOCSIFHWADDR"),
	IFREQ(0x8925, "SIOCGIFENCAP"),
	NONE(0x8926, "SIOCSIFENCAP"),
	IFREQ(0x8927, "SIOCGIFHWADDR"),
	IFREQ(0x8929, "SIOCGIFSLAVE"),
	IFREQ(0x8933, "SIOCGIFINDEX"),
	IFREQ(0x8938, "SIOCGIFPFLAGS"),
	NONE(0x8934, "SIOCSIFPFLAGS"),
	IFREQ(0x8942, "SIOCGIFTXQLEN"),
	NONE(0x8943, "SIOCSIFTXQLEN"),
	IFREQ(0x8970, "SIOCGIFMAP"),
	NONE(0x8971, "SIOCSIFMAP"),
	OUT(0x894B, 4, "SIOCOUTQNSD"),
	NONE(0x894C, "SIOCGSKNS"), /* its result is a new fd */
	/* block devices and file systems: linux/fs.h */
	OUT(0x0001, 4, "FIBMAP"),
	OUT(0x0002, 4, "FIGETBSZ"),
	NONE(0x125D, "BLKROSET"),
	OUT(0x125E, 4, "BLKROGET"),
	NONE(0x125F, "BLKRRPART"),
	OUT(0x1260, 8, "BLKGETSIZE"),
	NONE(0x1261, "BLKFLSBUF"),
	OUT(0x1263, 8, "BLKRAGET"),
	OUT(0x80081270, 4, "BLKBSZGET"), /* an int, whatever _IOR says */
	OUT(0x80081272, 8, "BLKGETSIZE64"),
	NONE(0x1262, "BLKRASET"),
	NONE(0x1264, "BLKFRASET"),
	OUT(0x1265, 8, "BLKFRAGET"),
	NONE(0x1266, "BLKSECTSET"),
	OUT(0x1267, 2, "BLKSECTGET"),
	OUT(0x1268, 4, "BLKSSZGET"),
	NONE(0x1269, "BLKPG"),
	NONE(0x1274, "BLKTRACESTART"),
	NONE(0x1275, "BLKTRACESTOP"),
	NONE(0x1276, "BLKTRACETEARDOWN"),
	NONE(0x1277, "BLKDISCARD"),
	OUT(0x1278, 4, "BLKIOMIN"),
	OUT(0x1279, 4, "BLKIOOPT"),
	OUT(0x127A, 4, "BLKALIGNOFF"),
	OUT(0x127B, 4, "BLKPBSZGET"),
	OUT(0x127C, 4, "BLKDISCARDZEROES"),
	NONE(0x127D, "BLKSECDISCARD"),
	OUT(0x127E, 2, "BLKROTATIONAL"),
	NONE(0x127F, "BLKZEROOUT"),
	/* loop devices: linux/loop.h; struct loop_info is 168 bytes,
	 * struct loop_info64 232; the LOOP_CTL_ requests answer in their
	 * result (a device number) */
	NONE(0x4C00, "LOOP_SET_FD"),
	NONE(0x4C01, "LOOP_CLR_FD"),
	NONE(0x4C02, "LOOP_SET_STATUS"),
	OUT(0x4C03, 168, "LOOP_GET_STATUS"),
	NONE(0x4C04, "LOOP_SET_STATUS64"),
	OUT(0x4C05, 232, "LOOP_GET_STATUS64"),
	NONE(0x4C06, "LOOP_CHANGE_FD"),
	NONE(0x4C07, "LOOP_SET_CAPACITY"),
	NONE(0x4C08, "LOOP_SET_DIRECT_IO"),
	NONE(0x4C09, "LOOP_SET_BLOCK_SIZE"),
	NONE(0x4C0A, "LOOP_CONFIGURE"),
	NONE(0x4C80, "LOOP_CTL_ADD"),
	NONE(0x4C81, "LOOP_CTL_REMOVE"),
	NONE(0x4C82, "LOOP_CTL_GET_FREE"),
	/* _IOWR requests whose struct points at, or is followed by, more
	 * memory the kernel fills: linux/fs.h */
	{0xC0686611, MRR_IOCTL_PROCMAP, 104, "PROCMAP_QUERY"},
	{0xC020660B, MRR_IOCTL_FIEMAP, 32, "FS_IOC_FIEMAP"},
	/* fscrypt (linux/fscrypt.h): directions the other way round from
	 * what the kernel does. PWSALT and GET_ENCRYPTION_POLICY fill their
	 * argument through _IOW; SET_ENCRYPTION_POLICY only reads it */
	OUT(0x40106614, 16, "FS_IOC_GET_ENCRYPTION_PWSALT"),
	OUT(0x400C6615, 12, "FS_IOC_GET_ENCRYPTION_POLICY"),
	NONE(0x800C6613, "FS_IOC_SET_ENCRYPTION_POLICY"),
	/* userfaultfd: linux/userfaultfd.h; UFFDIO_REGISTER hands the
	 * program's page faults in a range to whoever reads the fd */
	{0xC020AA00, MRR_IOCTL_REFUSED, 32, "UFFDIO_REGISTER"},
	/* cdrom: linux/cdrom.h; the probes that mkfs and libblkid make of
	 * every block device, and the table-of-contents reads */
	OUT(0x5305, 2, "CDROMREADTOCHDR"),
	OUT(0x5306, 12, "CDROMREADTOCENTRY"),
	NONE(0x5309, "CDROMEJECT"),
	OUT(0x5310, 8, "CDROMMULTISESSION"),
	OUT(0x5311, 14, "CDROM_GET_MCN"),
	NONE(0x5325, "CDROM_MEDIA_CHANGED"),
	NONE(0x5326, "CDROM_DRIVE_STATUS"),
	NONE(0x5327, "CDROM_DISC_STATUS"),
	NONE(0x5329, "CDROM_LOCKDOOR"),
	NONE(0x5331, "CDROM_GET_CAPABILITY"),
	OUT(0x5394, 8, "CDROM_NEXT_WRITABLE"),
	OUT(0x5395, 8, "CDROM_LAST_WRITTEN"),
	OUT(0x0301, 16, "HDIO_GETGEO"),
};

const char *mrr_ioctl_refusal(uint64_t req)
{
	switch (req & 0xffffffffu) {
	case 0xC020AA00: /* UFFDIO_REGISTER */
		return "from then on a fault on those pages waits until "
		       "the program fills them from another task "
		       "(UFFDIO_COPY...), at a moment no syscall of the "
		       "faulting task marks, which mrr cannot record";
	}
	return NULL;
}

int mrr_ioctl_out(uint64_t req, uint32_t *size, const char **name)
{
	uint32_t type = (req >> 8) & 0xff;
	size_t i;

	*size = 0;
	*name = NULL;
	req &= 0xffffffffu; /* the kernel takes an unsigned int */
	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++)
		if (ioctls[i].req == req) {
			*size = ioctls[i].size;
			*name = ioctls[i].name;
			return ioctls[i].kind;
		}
	if (req >> 16) {	       /* direction and size bits */
		if ((req >> 30) & 2) { /* _IOC_READ */
			*size = (req >> 16) & 0x3fff;
			return MRR_IOCTL_FIXED;
		}
		return MRR_IOCTL_NONE;
	}
	/* no size bits: the families of old-style numbers that write
	 * through their argument */
	switch (type) {
	case 0x00: /* file systems */
	case 0x03: /* HDIO */
	case 0x12: /* block */
	case 0x22: /* SCSI generic */
	case 0x4B: /* console */
	case 0x4C: /* loop */
	case 0x53: /* cdrom */
	case 0x54: /* tty */
	case 0x56: /* vt */
	case 0x89: /* sockets */
	case 0x8B: /* wireless */
		return MRR_IOCTL_UNKNOWN;
	}
	return MRR_IOCTL_NONE; /* _IO(): no data */
}
