#!/bin/sh
# Every C and C++ file in the repository follows .clang-format.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 77; }
bad=0
for f in $(git ls-files '*.c' '*.h' '*.cc' 2>/dev/null); do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f (run clang-format -i $f)"
		bad=$((bad + 1))
	fi
done
[ "$bad" -eq 0 ] && echo "all files formatted"
exit "$((bad > 0))"
