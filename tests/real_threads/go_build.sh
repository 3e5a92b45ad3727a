#!/bin/sh
# go_build.sh SOURCE_DIR OUTPUT: builds tests/real_threads/goprog with the
# system's Go (Debian's golang-go), offline: GOPATH mode, standard library
# only, the build cache next to OUTPUT. Exit 77 (skipped) without Go.
set -eu
[ $# = 2 ] || { echo "usage: $0 SOURCE_DIR OUTPUT" >&2; exit 2; }
go=""
for d in /usr/bin /bin /usr/lib/go/bin; do
	[ -x "$d/go" ] && { go=$d/go; break; }
done
if [ -z "$go" ]; then
	echo "SKIP: go is not installed (apt-get install golang-go, or run" \
		"scripts/install-deps.sh)"
	exit 77
fi
out=$2
work=$(dirname "$out")/go-work
mkdir -p "$work"
cd "$1"
GO111MODULE=off GOPROXY=off GOFLAGS= GOTOOLCHAIN=local \
	GOCACHE="$work/cache" GOPATH="$work/path" \
	"$go" build -o "$out.tmp" main.go
mv "$out.tmp" "$out"
chmod 755 "$out"
echo "built $out with $("$go" version)"
