#!/usr/bin/env bash
# Checks with clang-format-16 (.clang-format) the C++ lines changed by the commits being
# tested: the lines of HEAD that differ from BASE (first argument; default HEAD~1, which for
# a merge commit is everything the merge brought in). Only changed lines are checked, as
# the conventions ask for (existing code is not reformatted). Without a BASE commit in the
# history (a shallow clone of depth 1, a first commit) there is nothing to compare: the
# check says so and passes. Fails listing the files whose changed lines need formatting,
# with the diff that would fix them (`git clang-format-16 BASE` applies it).
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-HEAD~1}"
if ! git rev-parse -q --verify "${base}^{commit}" >/dev/null; then
  echo "check-format: no commit ${base} in this history (shallow clone?); nothing to check"
  exit 0
fi
status=0
diff=$(git clang-format-16 --binary clang-format-16 --extensions h,hpp,cpp,cc,cxx --diff "$base" HEAD) || status=$?
if [ "$status" -eq 0 ]; then
  echo "check-format: the C++ lines changed since ${base} are clang-format-16 clean"
  exit 0
fi
if [ "$status" -ne 1 ]; then
  echo "check-format: git clang-format-16 failed (status ${status}): ${diff}" >&2
  exit "$status"
fi
echo "check-format: these files have lines changed since ${base} that clang-format-16 would reformat:" >&2
grep -E '^diff --git ' <<<"$diff" | sed -E 's|^diff --git a/(.*) b/.*$|  \1|' >&2
echo "check-format: run 'git clang-format-16 ${base}' to fix them; the changes it would make:" >&2
echo "$diff" >&2
exit 1
