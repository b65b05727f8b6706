#!/usr/bin/env bash
# Runs the "; ROW: <kind> | <flags A> | <flags B>" lines of a test: both
# sides' --print-cache-key and outputs, from the current directory.
#   same     keys equal, outputs byte-identical
#   differ   keys differ, outputs differ
#   key      keys differ (the output may not change for this shader)
# Each side's output file is its -o, else out.<A|B>.spv.
set -uo pipefail
waveopt=$1 test=$2
status=0
side() {  # side <A|B> <kind> <flags>: prints "<key> <output file>"
  local flags=$3 out
  out=$(sed -n 's/.*-o \([^ ]*\).*/\1/p' <<< "$flags")
  [ -n "$out" ] || { out=out.$1.spv; flags="$flags -o $out"; }
  rm -f "$out"
  if [ "$2" != key ]; then
    eval "$waveopt $flags" 2> "side.$1.err" || { cat "side.$1.err"; echo "FAIL: $waveopt $flags"; return 1; }
  fi
  local key
  key=$(eval "$waveopt $flags --print-cache-key") || return 1
  echo "$key $out"
}
while IFS='|' read -r kind a b; do
  kind=${kind// /}
  ka=$(side A "$kind" "$a") && kb=$(side B "$kind" "$b") || { status=1; continue; }
  same_key=no same_out=no
  [ "${ka% *}" = "${kb% *}" ] && same_key=yes
  cmp -s "${ka#* }" "${kb#* }" && same_out=yes
  case $kind:$same_key:$same_out in
    same:yes:yes | differ:no:no | key:no:*) echo "ok    $kind |$a |$b" ;;
    *) echo "WRONG $kind |$a |$b: same key $same_key, same output $same_out"; status=1 ;;
  esac
done < <(sed -n 's/^; ROW: //p' "$test")
exit $status
