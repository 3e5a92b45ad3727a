#!/bin/bash
# fscrypt.sh MRR PROG: records and replays fscrypt_prog.c (with and without
# the syscall buffer) on a scratch ext4 file system made with -O encrypt and
# mounted from a loop device. Needs root, mkfs.ext4 and loop devices; skips
# (77) without them.
set -u
mrr=$1
prog=$2
here=$(dirname "$0")
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mount)"; exit 77; }
command -v mkfs.ext4 >/dev/null || { echo "SKIP: no mkfs.ext4"; exit 77; }
T=$(mktemp -d)
cleanup() {
	mountpoint -q "$T/mnt" && umount "$T/mnt"
	rm -rf "$T"
}
trap cleanup EXIT
truncate -s 32M "$T/img" && mkfs.ext4 -q -F -O encrypt "$T/img" >/dev/null 2>&1 ||
	{ echo "SKIP: mkfs.ext4 -O encrypt failed"; exit 77; }
mkdir "$T/mnt"
mount -o loop "$T/img" "$T/mnt" 2>/dev/null ||
	{ echo "SKIP: cannot mount a loop device"; exit 77; }
rc=0
for opt in "" --no-syscallbuf; do
	rm -rf "$T/mnt/enc"
	bash "$here/record_replay.sh" --mrr "$mrr" $opt --timeout 60 -- \
		"$prog" "$T/mnt" || rc=1
done
exit $rc
