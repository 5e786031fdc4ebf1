#!/usr/bin/env bash
# merge_interop.sh BUILD_DIR
#
# merge_insert against the reference (merge_interop.mjs): both implementations merge
# the same sources into copies of one table created by each, and read each other's.
# Skipped (77) without node. LANCET_INTEROP_KEEP=1 keeps the temp dir.
set -uo pipefail

die() { printf 'merge_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: merge_interop.sh BUILD_DIR\n' >&2; exit 64; }
command -v node >/dev/null 2>&1 || { printf 'merge_interop: node not found, skipped\n'; exit 77; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-merge-interop.XXXXXX")" || die "cannot create a temp dir"
node "$HERE/merge_interop.mjs" "$LANCET" "$PEER" "$WORK" 2> >(grep -v ' WARN ' >&2)
rc=$?
if [ "$rc" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
  rm -rf "$WORK"
else
  printf 'merge_interop: outputs kept in %s\n' "$WORK" >&2
fi
exit "$rc"
