#!/usr/bin/env bash
# lancet ends quietly with status 0 when its reader closes stdout early (`lancet scan X |
# head -1`), as git and ripgrep do: no SIGPIPE death (status 141), no error on stderr.
#   sigpipe_test.sh LANCET WORKDIR
set -u
LANCET=$1
WORK=$2/sigpipe.$$
rm -rf "$WORK"
mkdir -p "$WORK/src"
trap 'rm -rf "$WORK"' EXIT
# Enough rows that the output passes a pipe's 64 KiB buffer while the reader is gone.
for i in $(seq 1 3000); do echo "file $i" > "$WORK/src/f$i.txt"; done
"$LANCET" ingest "$WORK/src" "$WORK/ds" >/dev/null || { echo "ingest failed"; exit 1; }
fail=0
check() {
  local what=$1
  shift
  for round in 1 2 3 4 5; do
    # The reader reads one line and leaves; lancet keeps writing into the closed pipe.
    "$@" 2>"$WORK/err" | head -c 1 >/dev/null
    local rc=${PIPESTATUS[0]}
    if [ "$rc" != 0 ] || [ -s "$WORK/err" ]; then
      echo "FAIL: $what (round $round): exit $rc, stderr: $(cat "$WORK/err")"
      fail=1
    fi
  done
}
check "scan" "$LANCET" scan "$WORK/ds"
check "scan --format json" "$LANCET" scan "$WORK/ds" --format json
check "info" "$LANCET" info "$WORK/ds"
check "dump" "$LANCET" dump "$WORK/ds"
check "--help" "$LANCET" --help
[ "$fail" = 0 ] && echo "sigpipe: all quiet"
exit "$fail"
