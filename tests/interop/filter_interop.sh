#!/usr/bin/env bash
# filter_interop.sh BUILD_DIR
#
# Filters against the reference: for every predicate in tests/interop/filters/<dataset>.txt
# the reference's query().where(EXPR).withRowId() (filter_oracle.mjs) and Lancet's
# expr::Filter over a scan (BUILD_DIR/bin/filter_interop) must give the same rows (row
# ids and ids), or both refuse it; lines marked "! " are ones Lancet refuses on purpose
# and must give our error with a position (filter_check.mjs). Datasets: the public
# corpus (types, types_extra) from BUILD_DIR/corpus when present, else generated.
# Environment: as run_interop.sh (LANCET_PEER_HARNESS, LANCE_PEER_DIR,
# LANCET_INTEROP_KEEP=1 keeps the temp dir).
set -uo pipefail

die() { printf 'filter_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: filter_interop.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
DRIVER="$BUILD_DIR/bin/filter_interop"
[ -x "$DRIVER" ] || die "driver not found: $DRIVER (build the 'filter_interop' target)"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-filter-interop.XXXXXX")" || die "cannot create a temp dir"
status=1
cleanup() {
  if [ "$status" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'filter_interop: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

CORPUS="$BUILD_DIR/corpus/data"
if [ ! -d "$CORPUS/types.lance" ] || [ ! -d "$CORPUS/types_extra.lance" ]; then
  node "$PEER/gen.mjs" "$WORK/corpus" --seed 42 --only types,types_extra >/dev/null || die "corpus generation failed"
  CORPUS="$WORK/corpus/data"
fi

status=0
for list in "$HERE"/filters/*.txt; do
  name="$(basename "$list" .txt)"
  # The reference reads the predicates without our "! " marks.
  sed 's/^! //' "$list" > "$WORK/$name.where"
  "$DRIVER" "$CORPUS/$name.lance" "$WORK/$name.where" > "$WORK/$name.ours.jsonl" || { echo "FAIL $name: driver"; status=1; continue; }
  node "$HERE/filter_oracle.mjs" "$PEER" "$CORPUS/$name.lance" "$WORK/$name.where" > "$WORK/$name.ref.jsonl" 2>"$WORK/$name.ref.log" ||
    { echo "FAIL $name: oracle"; cat "$WORK/$name.ref.log"; status=1; continue; }
  echo "== $name"
  node "$HERE/filter_check.mjs" "$list" "$WORK/$name.ours.jsonl" "$WORK/$name.ref.jsonl" || status=1
done
exit $status
