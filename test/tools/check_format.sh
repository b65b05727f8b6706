#!/usr/bin/env bash
# Checks that every C++ file of the library, the tools and the tests is as
# clang-format (Debian's clang-format-14, with the repository's
# .clang-format) writes it. Prints each file that is not and how to fix it;
# exits 1 if there is any.
#   check_format.sh <source root>
set -euo pipefail
root=${1:?usage: check_format.sh <source root>}
cd "$root"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  echo "check_format: clang-format-14 is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
bad=0
while IFS= read -r -d '' f; do
  if ! "$fmt" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "$f: not formatted; run: $fmt -i --style=file $f"
    bad=1
  fi
done < <(find $(ls -d lib passes tools test 2>/dev/null) -type f \( -name '*.cpp' -o -name '*.h' \) \
           -not -path 'test/tools/*_fixture/*' -not -path 'test/lit/*' \
           -not -path 'test/diff/*' -print0 | sort -z)
exit $bad
