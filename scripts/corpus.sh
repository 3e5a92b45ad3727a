#!/bin/bash
# Runs an outside test corpus natively, under `mrr record` and under
# `mrr replay`, and prints one table row per program and totals.
#
#   scripts/corpus.sh [--ltp DIR] [--all] [--no-stress-ng] [OPTIONS]
#
# Corpora:
#   LTP        the Linux Test Project's syscall tests, built from a checkout
#              at DIR (outside this repository; nothing of it is copied here).
#              Without --ltp the LTP part is skipped with a message. By
#              default a subset about the calls mrr handles most carefully
#              (memory, files, pipes, processes, signals) is built and run;
#              --all runs every test in runtest/syscalls.
#   stress-ng  every stressor of the installed stress-ng, one worker each,
#              with --verify, a short timeout and an ops bound.
#
# A program passes under mrr when the recording exits as the native run did
# and the replay exits 0 with the recording's output (stdout and stderr,
# mrr's own lines left out). Every record and replay runs under timeout(1);
# a timeout is reported as "hang at record" or "hang at replay".
#
# Exit status: 0 when every program that passes natively passes under mrr or
# is refused with a reason; 1 otherwise; 64 usage; 77 nothing to run.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
self="$top/scripts/corpus.sh"

usage() {
	cat <<'EOF'
usage: scripts/corpus.sh [--ltp DIR] [--all] [OPTIONS]

  --ltp DIR         LTP source checkout to build and run (skipped without it)
  --all             all LTP syscall tests, not the default subset
  --no-ltp          skip LTP
  --no-stress-ng    skip stress-ng
  --only REGEX      run only programs whose name matches REGEX (grep -E)
  --mrr PATH        the mrr binary (default: build/bin/mrr, then PATH)
  -j N              programs run in parallel (default 2)
  --timeout S       limit for each native run, record and replay (default 60)
  --work DIR        where runs and traces go (default: a new dir in /tmp)
  --keep            keep every trace, not only the failing ones
  --rerun           keep the results already in --work; run only the
                    programs --only selects, then print the whole table
  -o FILE           also write the table to FILE
  --no-install      never apt-get install missing build tools
EOF
}

# ---------------------------------------------------------------- one program
# Internal: `corpus.sh --run-one LINE` runs one job line
# "suite|name|cwd|path-prefix|flags|command words" (an empty cwd is the
# run's own temporary directory; flag "dev": the program takes a loop device,
# so its native run and recording hold $CORPUS_WORK/dev.lock) and writes
# $CORPUS_WORK/results/suite.name holding one row
# "suite|name|native|record|replay|status|reason".

native_result() { # rc suite
	case $1 in
	0) echo pass ;;
	124 | 137) echo hang ;;
	*)
		if [ "$2" = ltp ] && [ "$1" = 32 ]; then
			echo skip
		elif [ "$2" = stress-ng ] && { [ "$1" = 3 ] || [ "$1" = 4 ]; }; then
			echo skip
		elif [ "$1" -gt 128 ]; then
			echo "signal $(($1 - 128))"
		else
			echo "fail($1)"
		fi
		;;
	esac
}

# The first line mrr wrote about a problem (not its "recording X to Y").
mrr_line() {
	grep -a '^mrr: ' "$1" 2>/dev/null | grep -av '^mrr: recording [^ ]* to ' |
		head -n 1 | cut -c1-300 | tr '|' '/'
}

# The program's own output in a captured stream: mrr's lines left out.
program_output() {
	grep -av '^mrr: ' "$1" 2>/dev/null
}

# A test killed by the time limit (LTP's writev03 runs past it) leaves its
# file system mounted on a loop device under the run's directory: undo that.
release_mounts() { # dir
	[ "$(id -u)" -eq 0 ] || return 0
	awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m"; done
	command -v losetup >/dev/null || return 0
	losetup -l -n -O NAME,BACK-FILE 2>/dev/null |
		awk -v d="$1/" 'index($2, d) == 1 { print $1 }' |
		while read -r l; do losetup -d "$l"; done
}

run_one() {
	local suite name cwd pathpre cmd d nrc rrc prc native record replay
	local status reason="" line prc=""
	IFS='|' read -r suite name cwd pathpre flags cmd <<<"$1"
	read -r -a words <<<"$cmd"
	d="$CORPUS_WORK/runs/$suite.$name"
	rm -rf "$d"
	if ! mkdir -p "$d/tmp"; then
		echo "$suite|$name|-|-|-|fail|the harness could not create $d" \
			>"$CORPUS_WORK/results/$suite.$name"
		return
	fi
	[ -n "$cwd" ] || cwd="$d/tmp"
	local T=$CORPUS_TIMEOUT
	local envs=(env "PATH=$pathpre${pathpre:+:}$PATH" "TMPDIR=$d/tmp")
	# LTP finds a free loop device racily: two at once get EBUSY.
	local lock=()
	[ "$flags" = dev ] && lock=(flock "$CORPUS_WORK/dev.lock")

	(cd "$cwd" && "${lock[@]}" timeout -k 5 "$T" "${envs[@]}" "${words[@]}" \
		>"$d/native.out" 2>"$d/native.err" </dev/null)
	nrc=$?
	release_mounts "$d"
	native=$(native_result "$nrc" "$suite")

	(cd "$cwd" && "${lock[@]}" timeout -k 5 "$T" "${envs[@]}" "$CORPUS_MRR" record \
		-o "$d/trace" -- "${words[@]}" \
		>"$d/record.out" 2>"$d/record.err" </dev/null)
	rrc=$?
	release_mounts "$d"
	line=$(mrr_line "$d/record.err")
	case $rrc in
	124 | 137) record=hang ;;
	69) record=refused ;;
	*) record=$(native_result "$rrc" "$suite") ;;
	esac
	# mrr's own failures have exit codes of their own; the program's status
	# is passed through, so only trust an mrr line as the reason for them.
	if [ -n "$line" ] && [ "$rrc" -ge 64 ] && [ "$rrc" -le 73 ] &&
		[ "$rrc" != 69 ] && [ "$rrc" != "$nrc" ]; then
		record="mrr($rrc)"
	fi

	replay=-
	if [ "$record" != refused ] && [ "$record" != hang ] &&
		[ -d "$d/trace" ]; then
		timeout -k 5 "$T" "$CORPUS_MRR" replay "$d/trace" \
			>"$d/replay.out" 2>"$d/replay.err" </dev/null
		prc=$?
		case $prc in
		0)
			if cmp -s <(program_output "$d/record.out") \
				<(program_output "$d/replay.out") &&
				cmp -s <(program_output "$d/record.err") \
					<(program_output "$d/replay.err"); then
				replay=ok
			else
				replay="output differs"
			fi
			;;
		124 | 137) replay=hang ;;
		70) replay=diverged ;;
		*) replay="mrr($prc)" ;;
		esac
	fi

	if [ "$record" = refused ]; then
		status=refused
		reason=${line:-"exit 69 without a message"}
	elif [ "$record" = hang ]; then
		status=fail
		reason="hang at record${line:+: $line}"
	elif [ "$rrc" != "$nrc" ]; then
		status=fail
		reason=${line:-"exit $rrc at record, $nrc natively"}
	elif [ "$replay" = hang ]; then
		status=fail
		reason="hang at replay$(l=$(mrr_line "$d/replay.err") && [ -n "$l" ] && echo ": $l")"
	elif [ "$replay" = "output differs" ]; then
		status=fail
		reason="replay exited 0 with output different from the recording"
	elif [ "$replay" != ok ]; then
		status=fail
		reason=$(mrr_line "$d/replay.err")
		reason=${reason:-"replay exited $prc"}
	else
		status=ok
	fi
	[ "$status" = ok ] && [ -z "$CORPUS_KEEP" ] && rm -rf "$d/trace"
	echo "$suite|$name|$native|$record|$replay|$status|$reason" \
		>"$CORPUS_WORK/results/$suite.$name"
	printf '%-9s %-28s %s\n' "$status" "$suite/$name" "$reason" >&2
}

if [ "${1:-}" = --run-one ]; then
	run_one "$2"
	exit 0
fi

# ---------------------------------------------------------------- options
ltp="" ltp_all="" do_ltp=1 do_stress=1 only="" mrr="" jobs=2 tmo=60
work="" keep="" out="" install=1 rerun=""
while [ $# -gt 0 ]; do
	case $1 in
	--ltp) ltp=${2:?--ltp needs a directory} && shift ;;
	--all) ltp_all=1 ;;
	--no-ltp) do_ltp="" ;;
	--no-stress-ng) do_stress="" ;;
	--only) only=${2:?} && shift ;;
	--mrr) mrr=${2:?} && shift ;;
	-j) jobs=${2:?} && shift ;;
	-j*) jobs=${1#-j} ;;
	--timeout) tmo=${2:?} && shift ;;
	--work) work=${2:?} && shift ;;
	--keep) keep=1 ;;
	--rerun) rerun=1 ;;
	-o) out=${2:?} && shift ;;
	--no-install) install="" ;;
	-h | --help) usage && exit 0 ;;
	*) usage >&2 && exit 64 ;;
	esac
	shift
done

if [ -z "$mrr" ]; then
	for m in "$top/build/bin/mrr" "$(command -v mrr 2>/dev/null)"; do
		[ -n "$m" ] && [ -x "$m" ] && mrr=$m && break
	done
fi
[ -x "$mrr" ] || { echo "corpus: no mrr binary (build it, or pass --mrr)" >&2 && exit 64; }
mrr=$(cd "$(dirname "$mrr")" && pwd)/$(basename "$mrr")
[ -n "$work" ] || work=$(mktemp -d /tmp/mrr-corpus.XXXXXX)
mkdir -p "$work/results" "$work/runs" && work=$(cd "$work" && pwd)
[ -n "$rerun" ] || rm -f "$work"/results/*
rm -f "$work/jobs"

# Installs Debian packages only when a tool is missing, we may (root or
# sudo), and apt-get exists; a machine without network just skips that part.
need_tools() { # tool... -- package...
	local missing="" pkgs=()
	while [ "$1" != -- ]; do
		command -v "$1" >/dev/null 2>&1 || missing=1
		shift
	done
	shift
	pkgs=("$@")
	[ -z "$missing" ] && return 0
	[ -n "$install" ] && command -v apt-get >/dev/null 2>&1 || return 1
	local sudo=""
	[ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && sudo="sudo -n"; } || return 1
	echo "corpus: installing ${pkgs[*]}" >&2
	$sudo apt-get update -qq >/dev/null 2>&1
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
		--no-install-recommends "${pkgs[@]}" >/dev/null 2>&1
}

# ---------------------------------------------------------------- LTP
# The default subset: the syscalls directories whose calls mrr records or
# replays with care of its own.
ltp_dirs="mmap madvise mlock mlock2 mlockall munlock munlockall mremap munmap
mprotect msync mincore brk sbrk memfd_create read readv pread preadv write
writev pwrite pwritev open openat close close_range pipe pipe2 dup dup2 dup3
fcntl lseek stat fstat lstat getrandom clock_gettime clock_nanosleep nanosleep
gettimeofday fork vfork wait wait4 waitpid kill signal rt_sigaction
rt_sigprocmask rt_sigsuspend sigaction sigprocmask sigaltstack alarm execve
execveat prctl personality getpid getppid gettid uname exit exit_group ioctl"

# Tests that change the host for everyone on it, not run: leapsec01 sets the
# system clock to 23:59:59 (which also fires other users' realtime timers).
ltp_skip="leapsec01"

ltp_jobs() {
	local sys="$ltp/testcases/kernel/syscalls" dirs d n name bin rest bdir
	if [ ! -f "$ltp/include/config.h" ]; then
		echo "corpus: configuring LTP in $ltp" >&2
		(cd "$ltp" && make autotools && ./configure) >"$work/ltp-configure.log" 2>&1 ||
			{ echo "corpus: LTP configure failed; see $work/ltp-configure.log" >&2 && return 1; }
	fi
	echo "corpus: building LTP's library" >&2
	make -C "$ltp/lib" -j"$jobs" >"$work/ltp-build.log" 2>&1 ||
		{ echo "corpus: LTP library build failed; see $work/ltp-build.log" >&2 && return 1; }
	if [ -n "$ltp_all" ]; then
		dirs=$(cd "$sys" && for d in */; do [ -f "$d/Makefile" ] && echo "${d%/}"; done)
	else
		dirs=$ltp_dirs
	fi
	n=$(echo $dirs | wc -w)
	echo "corpus: building LTP tests in $n directories of $sys" >&2
	for d in $dirs; do
		[ -d "$sys/$d" ] || continue
		make -C "$sys/$d" -j"$jobs" >>"$work/ltp-build.log" 2>&1 ||
			echo "corpus: some LTP tests in $d did not build (see $work/ltp-build.log)" >&2
	done
	# runtest/syscalls names each test and its command line.
	for d in $dirs; do
		for bin in "$sys/$d"/*; do
			[ -f "$bin" ] && [ -x "$bin" ] && echo "${bin##*/} $d"
		done
	done >"$work/ltp-bins"
	grep -v '^#' "$ltp/runtest/syscalls" | awk 'NF >= 2' |
		while read -r name bin rest; do
			case "$bin $rest" in *[\;\|\&\<\>\$\`]*) continue ;; esac
			case " $ltp_skip " in *" $name "*) continue ;; esac
			bdir=$(awk -v b="$bin" '$1 == b { print $2; exit }' "$work/ltp-bins")
			[ -n "$bdir" ] || continue
			flags=""
			grep -qsE 'needs_device|all_filesystems|mount_device|format_device|tst_find_free_loopdev' \
				"$sys/$bdir/${bin%_64}.c" && flags=dev
			printf 'ltp|%s|%s|%s|%s|%s\n' "$name" "$sys/$bdir" "$sys/$bdir" "$flags" \
				"$bin${rest:+ $rest}"
		done
}

# ---------------------------------------------------------------- stress-ng
# Stressors that act on the host beyond a test's own files and memory
# (hardware, devices, kernel state, CPU hotplug, the watchdog, flooding the
# network, filling memory) are not run; nor is forkheavy, during which the
# disk's free space dropped from 75 GB to 1 GB for a moment in every run.
stress_skip="watchdog cpu-online reboot smi klog loop ramfs swap sysinval dev
bad-ioctl memhotplug softlockup efivar rawdev pci physpage idle-page tun
icmp-flood udp-flood rawpkt rawsock rawudp netdev kvm gpu quota bind-mount
umount binderfs oom-pipe bigheap mlockmany ioport rtc sysfs apparmor
pageswap tlb-shootdown cyclic forkheavy"
# Stressors that run alone, after the others: resources takes the disk's
# free space from 75 GB to under 4 GB for a moment natively (for its whole
# recording under mrr), and the replays beside it failed to copy their
# files ("No space left on device": revio, ring-pipe, rlimit, prefetch in
# two full runs).
stress_alone="resources"

stress_jobs() {
	local s
	for s in $(stress-ng --stressors); do
		case " $(echo $stress_skip) " in *" $s "*) continue ;; esac
		printf 'stress-ng|%s||||%s\n' "$s" \
			"stress-ng --$s 1 --$s-ops 50 --timeout 1 --verify --no-rand-seed --oomable --temp-path . --log-brief"
	done
}

# ---------------------------------------------------------------- run
if [ -n "$do_ltp" ]; then
	if [ -z "$ltp" ]; then
		echo "corpus: LTP skipped: pass --ltp DIR, a checkout of github.com/linux-test-project/ltp" >&2
	elif ! need_tools autoconf automake make gcc pkg-config -- autoconf automake make gcc pkg-config; then
		echo "corpus: LTP skipped: autoconf, automake, make, gcc or pkg-config is missing" >&2
	else
		ltp=$(cd "$ltp" && pwd) && ltp_jobs >>"$work/jobs"
	fi
fi
if [ -n "$do_stress" ]; then
	if need_tools stress-ng -- stress-ng; then
		stress_jobs >>"$work/jobs"
	else
		echo "corpus: stress-ng skipped: it is not installed" >&2
	fi
fi
[ -f "$work/jobs" ] || touch "$work/jobs"
if [ -n "$only" ]; then
	awk -F'|' -v re="$only" '$2 ~ re' "$work/jobs" >"$work/jobs.only"
	mv "$work/jobs.only" "$work/jobs"
fi
total=$(wc -l <"$work/jobs")
if [ "$total" -eq 0 ]; then
	echo "corpus: nothing to run" >&2
	exit 77
fi
# the stressors of stress_alone apart, to run one by one at the end
: >"$work/jobs.alone"
awk -F'|' -v alone=" $(echo $stress_alone) " -v af="$work/jobs.alone" \
	'$1 == "stress-ng" && index(alone, " " $2 " ") { print > af; next } { print }' \
	"$work/jobs" >"$work/jobs.together"

echo "corpus: $total programs, $jobs at a time ($(wc -l <"$work/jobs.alone") alone at the end), ${tmo}s limit per run; work dir $work" >&2
export CORPUS_WORK=$work CORPUS_MRR=$mrr CORPUS_TIMEOUT=$tmo CORPUS_KEEP=$keep
tr '\n' '\0' <"$work/jobs.together" | xargs -0 -P "$jobs" -n 1 "$self" --run-one
tr '\n' '\0' <"$work/jobs.alone" | xargs -0 -r -P 1 -n 1 "$self" --run-one

# ---------------------------------------------------------------- table
table() {
	local f
	printf '%-10s %-26s %-10s %-10s %-15s %-8s %s\n' suite program native record \
		replay status reason
	for f in "$work"/results/*; do
		[ -f "$f" ] && cat "$f"
	done | sort -t'|' -k1,1 -k2,2 |
		awk -F'|' '{ printf "%-10s %-26s %-10s %-10s %-15s %-8s %s\n", $1, $2, $3, $4, $5, $6, $7 }'
	echo
	cat "$work"/results/* | awk -F'|' '
	{ n++
	  if ($3 == "pass") { np++
	    if ($6 == "ok") ok++
	    else if ($6 == "refused") { ref++; if ($7 ~ /thread/) reft++ }
	    else bad++
	  } else { other++; if ($6 == "ok") otherok++ }
	}
	END {
	  printf "programs run:                  %d\n", n
	  printf "passing natively:              %d\n", np
	  printf "  passing under mrr:           %d\n", ok
	  printf "  refused with a reason:       %d (threads: %d)\n", ref, reft
	  printf "  failing:                     %d\n", bad
	  printf "not passing natively:          %d (skip, fail or hang natively)\n", other
	  printf "  reproduced under mrr:        %d (same exit at record, faithful replay)\n", otherok
	}'
	[ -n "$do_ltp" ] && [ -n "$ltp" ] &&
		echo "not run, they change the host: LTP $ltp_skip"
	[ -n "$do_stress" ] &&
		echo "not run, they act on the host:" "stress-ng" $stress_skip
}
table >"$work/table.txt"
cat "$work/table.txt"
[ -n "$out" ] && cp "$work/table.txt" "$out"
echo "corpus: runs and failing traces are in $work/runs" >&2
awk -F'|' '$3 == "pass" && $6 == "fail" { bad = 1 } END { exit bad }' "$work"/results/*
