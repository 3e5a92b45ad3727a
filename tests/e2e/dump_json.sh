#!/bin/bash
# dump_json.sh: every line of `mrr dump --json` parses as JSON and follows
# trace-format/DUMP-JSON.md.
#
#   dump_json.sh --mrr PATH -- PROG [PROG...]
#
# Records each PROG (no arguments; with the syscall buffer, as mrr does by
# default) and checks the output of `dump --json` with -m -p, with --stable,
# with -s and with --maps-at against the schema, which the Python checker
# below spells out field by field. Also checks that the JSON agrees with the
# text dump on the number of events. Exits 0 when every line conforms.

set -u

usage() {
	echo "usage: $0 --mrr PATH -- PROG [PROG...]" >&2
	exit 2
}

mrr=""
while [ $# -gt 0 ]; do
	case $1 in
	--mrr) [ $# -ge 2 ] || usage; mrr=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [ -z "$mrr" ] || [ $# = 0 ]; then usage; fi

T=$(mktemp -d "${TMPDIR:-/tmp}/mrr-dump-json.XXXXXX") || exit 1

fail() {
	echo "FAIL: $*"
	echo "--- kept $T"
	exit 1
}

cat >"$T/check.py" <<'EOF'
import json, re, sys

ADDR = re.compile(r'^0x[0-9a-f]+$')
TOKEN = re.compile(r'^((exe|interp|heap|stack|mrr|map[1-9][0-9]*)([+-]0x[0-9a-f]+)?|0xADDR)$')
STORED = re.compile(r'^[0-9a-f]{16}-[0-9a-f]+$')
KINDS = {'exec', 'syscall', 'signal', 'rdtsc', 'exit', 'buffer', 'backtrace',
         'preempt', 'sched', 'unknown'}
FLAGS = {'buffered', 'skipped', 'to_stdout', 'to_stderr'}
stable = False
errors = []


def err(where, msg):
    errors.append('%s: %s' % (where, msg))


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def addr(w, v):
    if not isinstance(v, str) or not (ADDR.match(v) or
                                       (stable and TOKEN.match(v))):
        err(w, 'not an address: %r' % (v,))


def stored(w, v, nullable=True):
    if v is None and nullable:
        return
    if not isinstance(v, str) or not (
            re.match(r'^file#[1-9][0-9]*$', v) if stable else STORED.match(v)):
        err(w, 'not a stored file name: %r' % (v,))


def fields(w, obj, required, optional=()):
    for k, check in required.items():
        if k not in obj:
            err(w, 'missing %s' % k)
        else:
            check('%s.%s' % (w, k), obj[k])
    known = set(required) | set(optional)
    for k in obj:
        if k not in known:
            err(w, 'unexpected field %s' % k)
    for k, check in dict(optional).items():
        if k in obj:
            check('%s.%s' % (w, k), obj[k])


def t_int(w, v):
    if not is_int(v):
        err(w, 'not an integer: %r' % (v,))


def t_uint(w, v):
    if not is_int(v) or v < 0:
        err(w, 'not a non-negative integer: %r' % (v,))


def t_str(w, v):
    if not isinstance(v, str):
        err(w, 'not a string: %r' % (v,))


def t_str_or_null(w, v):
    if v is not None and not isinstance(v, str):
        err(w, 'not a string or null: %r' % (v,))


def t_bool(w, v):
    if not isinstance(v, bool):
        err(w, 'not a boolean: %r' % (v,))


def t_true(w, v):
    if v is not True:
        err(w, 'not true: %r' % (v,))


def masked(text):
    def check(w, v):
        if stable and v == text:
            return
        t_uint(w, v)
    return check


def one_of(*vals):
    def check(w, v):
        if v not in vals:
            err(w, '%r not one of %r' % (v, vals))
    return check


def array(item):
    def check(w, v):
        if not isinstance(v, list):
            err(w, 'not an array')
            return
        for i, x in enumerate(v):
            item('%s[%d]' % (w, i), x)
    return check


def obj(required, optional=()):
    def check(w, v):
        if not isinstance(v, dict):
            err(w, 'not an object')
            return
        fields(w, v, required, optional)
    return check


MAP = obj({'start': addr, 'size': t_uint,
           'perms': lambda w, v: re.match(r'^[r-][w-][x-][ps]$', v) or
           err(w, 'bad perms %r' % (v,)),
           'offset': t_uint, 'file': stored, 'label': t_str})
COMMON = {'seq': t_uint, 'tid': t_int, 'kind': one_of(*KINDS), 'ip': addr,
          'flags': array(one_of(*FLAGS)), 'nwrites': t_uint}
COMMON_OPT = {'pid': t_int, 'new_thread_of': t_int,
              'maps_removed': array(MAP), 'maps_added': array(MAP),
              'writes': array(obj({'addr': addr, 'len': t_uint,
                                   'hex': lambda w, v: re.match(
                                       r'^([0-9a-f]{2})*$', v) or
                                   err(w, 'bad hex')}))}


def result(w, v):
    if is_int(v):
        return
    if stable and isinstance(v, str) and (
            TOKEN.match(v) or v == 'TIME' or re.match(r'^[1-9][0-9]*$', v)):
        return
    err(w, 'bad result %r' % (v,))


PER_KIND = {
    'syscall': ({'nr': t_int, 'name': t_str_or_null, 'args': array(t_str),
                 'decoded': array(t_str), 'result': result,
                 'result_text': t_str, 'mode': one_of('traced', 'buffered'),
                 'skipped': t_bool},
                {'errno': t_str, 'call': t_str,
                 'madvise': obj({'precision': one_of('pfn', 'present',
                                                     'unknown'),
                                 'forced_drop': t_bool,
                                 'dropped': array(obj({
                                     'start': addr, 'size': t_uint,
                                     'fill': one_of('zero', 'file', 'keep',
                                                    'hole', 'fill?')})),
                                 'locked': array(obj({'start': addr,
                                                      'size': t_uint}))}),
                 'mmap_file': obj({'file': stored, 'size': t_uint,
                                   'shared': t_bool}),
                 'interrupted': obj({'pending': array(t_str)}),
                 'file_write': obj({'file': stored, 'offset': t_uint}),
                 'bad_extra': t_true}),
    'exec': ({'path': t_str, 'exe_file': stored, 'interp_file': stored},
             {'bad_extra': t_true}),
    'signal': ({'signo': t_int, 'signal': t_str_or_null},
               {'how': one_of('sync', 'after-syscall', 'fatal', 'how?'),
                'si_code': t_int, 'si_code_name': t_str_or_null,
                'si_addr': addr, 'si_pid': t_int, 'bad_extra': t_true}),
    'rdtsc': ({'insn': one_of('rdtsc', 'rdtscp'), 'tsc': masked('TSC')},
              {'aux': masked('AUX')}),
    'exit': ({'status': t_int, 'text': t_str},
             {'exit_code': t_int, 'signal': t_str, 'core_dumped': t_bool}),
    'buffer': ({'records': t_uint, 'bytes': t_uint},
               {'calls': array(obj({'nr': t_int, 'name': t_str_or_null,
                                    'decoded': array(t_str),
                                    'result': result, 'result_text': t_str,
                                    'data_len': t_uint})),
                'bad_record': t_str}),
    'backtrace': ({'of': lambda w, v: v is None or t_uint(w, v),
                   'frames': array(t_str)}, {}),
    'preempt': ({'reason': one_of('timeslice', 'signal'),
                 'execution': lambda w, v: v == 'N' or t_uint(w, v)}, {}),
    'sched': ({'reason': t_str, 'syscall': t_str}, {}),
    'unknown': ({'kind_number': t_uint}, {}),
}

STATS = {'kind': one_of('stats'),
         'status': one_of('complete', 'interrupted', 'error', 'incomplete'),
         'events': t_uint, 'by_kind': lambda w, v: None,
         'syscalls': t_uint, 'traced': t_uint, 'buffered': t_uint,
         'skipped': t_uint, 'by_syscall': lambda w, v: None,
         'buffered_calls': t_uint,
         'writes': t_uint, 'write_bytes': t_uint, 'chunks': t_uint,
         'raw_bytes': t_uint, 'compressed_bytes': t_uint,
         'ratio': lambda w, v: isinstance(v, (int, float)) or err(w, 'ratio'),
         'file_bytes': t_uint,
         'files': array(obj({'name': t_str, 'size': t_uint,
                             'path': t_str_or_null,
                             'other_paths': t_uint})),
         'tasks': array(obj({'tid': t_int, 'pid': t_int, 'thread': t_bool,
                             'events': t_uint, 'syscalls': t_uint,
                             'switches': t_uint, 'preemptions': t_uint}))}


def check_file(path):
    counts = {}
    last_seq = -1
    n = 0
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            w = '%s:%d' % (path, lineno)
            try:
                o = json.loads(line)
            except ValueError as e:
                err(w, 'not JSON: %s' % e)
                continue
            if not isinstance(o, dict):
                err(w, 'not an object')
                continue
            n += 1
            kind = o.get('kind')
            if kind == 'stats':
                fields(w, o, STATS)
                if sum(o['by_kind'].values()) != o['events']:
                    err(w, 'by_kind does not add up to events')
                if sum(o['by_syscall'].values()) != o['syscalls']:
                    err(w, 'by_syscall does not add up to syscalls')
                if sum(t['events'] for t in o.get('tasks', ())) != \
                        o['events']:
                    err(w, 'tasks do not add up to events')
                continue
            if kind == 'maps':
                fields(w, o, {'kind': t_str, 'tid': t_int,
                              'maps': array(MAP)})
                continue
            if kind not in PER_KIND:
                err(w, 'unknown kind %r' % (kind,))
                continue
            req, opt = PER_KIND[kind]
            r = dict(COMMON)
            r.update(req)
            o2 = dict(opt)
            o2.update(COMMON_OPT)
            o2['write_bytes'] = lambda w, v: None  # checked below
            fields(w, o, r, o2)
            if 'write_bytes' not in o:
                err(w, 'missing write_bytes')
            elif not (is_int(o['write_bytes']) or
                      (stable and kind == 'exec' and
                       o['write_bytes'] == 'SIZE')):
                err(w, 'bad write_bytes %r' % (o['write_bytes'],))
            if is_int(o.get('seq')):
                if o['seq'] <= last_seq:
                    err(w, 'seq %d does not increase' % o['seq'])
                last_seq = o['seq']
            counts[kind] = counts.get(kind, 0) + 1
            if kind == 'syscall' and is_int(o.get('result')) and \
                    -4095 <= o['result'] < 0 and 'errno' not in o:
                err(w, 'failed call without errno')
    print('%s: %d objects, %s' % (path, n, ' '.join(
        '%s=%d' % kv for kv in sorted(counts.items()))))
    if not n:
        err(path, 'no JSON objects')


# arguments: FILE MODE pairs, MODE "stable" or "plain"
args = sys.argv[1:]
for path, mode in zip(args[::2], args[1::2]):
    stable = mode == 'stable'
    check_file(path)
for e in errors[:30]:
    print(e)
if errors:
    print('%d schema errors' % len(errors))
    sys.exit(1)
EOF

i=0
checks=()
for prog in "$@"; do
	i=$((i + 1))
	tr=$T/trace$i
	"$mrr" record -o "$tr" -- "$prog" </dev/null >"$T/prog$i.out" \
		2>"$T/record$i.err"
	[ -d "$tr" ] || fail "mrr record $prog made no trace: $(tail -n 3 "$T/record$i.err")"
	for opts in "--json -b" "--json -m -p" "--json --stable -m -b" \
		"--json -s" "--json --maps-at 3" "--json --stable --maps-at 3"; do
		out=$T/dump$i.${opts// /_}.json
		# shellcheck disable=SC2086 # options are split on purpose
		"$mrr" dump $opts "$tr" >"$out" 2>"$T/dump.err" ||
			fail "mrr dump $opts $tr: $(cat "$T/dump.err")"
		[ -s "$out" ] || fail "mrr dump $opts $tr printed nothing"
		mode=plain
		case $opts in *--stable*) mode=stable ;; esac
		checks+=("$out" "$mode")
	done
	text=$("$mrr" dump "$tr" | grep -c '^[0-9]')
	json=$(wc -l <"$T/dump$i.--json_-b.json")
	[ "$text" = "$json" ] ||
		fail "$(basename "$prog"): $text events in text, $json JSON lines"
done
# one interpreter for all files: python starts slowly on a loaded machine
python3 -S "$T/check.py" "${checks[@]}" || fail "dump --json breaks the schema"
echo "ok: $i recordings, every --json line follows the schema"
rm -rf "$T"
exit 0
