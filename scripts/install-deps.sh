#!/bin/sh
# Installs the Debian packages mrr needs to build and test. Idempotent and quiet
# when everything is present already.
set -e
pkgs="build-essential cmake pkg-config libcapstone-dev libunwind-dev libzstd-dev \
libgtest-dev clang clang-format linux-libc-dev sqlite3 python3 util-linux file \
coreutils openssl zstd xz-utils golang-go nodejs gdb stress-ng strace"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
