#!/bin/bash
# preempt_openssl.sh MRR VARIANT: `openssl speed -seconds 1 sha256` sets
# alarm(1) and computes without syscalls until SIGALRM; mrr must deliver the
# signal inside that loop at record, and at the same point at replay, so the
# replay prints the recorded results. VARIANT: buf, nobuf (-n), nobody, or
# rewrite (rdtsc mode rewrite). Exit 77 (skip) when openssl is missing.
set -u
mrr=$1
variant=$2
here=$(cd "$(dirname "$0")" && pwd)
openssl=$(PATH=/usr/bin:/bin command -v openssl) || {
	echo "SKIP: openssl is not installed (scripts/install-deps.sh installs it)"
	exit 77
}
args=(--mrr "$mrr" --real --timeout 100)
case $variant in
buf) ;;
nobuf) args+=(--no-syscallbuf) ;;
nobody) args+=(--as-nobody) ;;
rewrite) export MRR_TSC_MODE=rewrite ;;
*) echo "preempt_openssl.sh: unknown variant $variant" >&2; exit 2 ;;
esac
exec "$here/record_replay.sh" "${args[@]}" -- "$openssl" speed -seconds 1 sha256
