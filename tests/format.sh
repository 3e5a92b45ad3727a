#!/bin/sh
# Every C and C++ file in the repository follows .clang-format.
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 77; }
files=$(git ls-files '*.c' '*.h' '*.cc' 2>/dev/null)
[ -n "$files" ] || { echo "no files (not a git checkout?)"; exit 77; }
# One run for all files; on failure, name each file that is off.
if clang-format --dry-run -Werror $files >/dev/null 2>&1; then
	echo "all $(echo "$files" | wc -l) files formatted"
	exit 0
fi
for f in $files; do
	clang-format --dry-run -Werror "$f" >/dev/null 2>&1 ||
		echo "not formatted: $f (run clang-format -i $f)"
done
exit 1
