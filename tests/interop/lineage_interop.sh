#!/usr/bin/env bash
# lineage_interop.sh BUILD_DIR
#
# Row lineage and CDC against the reference peer, both ways (lineage_interop.mjs).
# Exits 77 (skipped) without node. Environment as run_interop.sh
# (LANCET_PEER_HARNESS, LANCE_PEER_DIR, LANCET_INTEROP_KEEP=1 keeps the temp dir).
set -uo pipefail

die() { printf 'lineage_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: lineage_interop.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"
if ! command -v node >/dev/null 2>&1; then
  printf 'lineage_interop: SKIP: node not found (the peer needs node >= 20)\n'
  exit 77
fi

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-lineage-interop.XXXXXX")" || die "cannot create a temp dir"
status=1
cleanup() {
  if [ "$status" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'lineage_interop: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

nice node "$HERE/lineage_interop.mjs" "$LANCET" "$PEER" "$WORK" 2> >(grep -v ' WARN ' >&2)
status=$?
exit "$status"
