#!/usr/bin/env bash
# update_interop.sh BUILD_DIR
#
# Update interop against the reference peer: update_interop.mjs updates tables of
# either side with `lancet update` and the reference's table.update() and checks
# values, row ids and row versions from both, and blob bytes moved in the corpus's
# blobs_custom table (when the corpus is built). Skipped (77) without node.
# Environment: as run_interop.sh (LANCET_PEER_HARNESS, LANCE_PEER_DIR,
# LANCET_INTEROP_KEEP=1 keeps the temp dir).
set -uo pipefail

die() { printf 'update_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: update_interop.sh BUILD_DIR\n' >&2; exit 64; }
command -v node >/dev/null 2>&1 || { printf 'update_interop: node not found, skipped\n'; exit 77; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-update-interop.XXXXXX")" || die "cannot create a temp dir"
node "$HERE/update_interop.mjs" "$LANCET" "$PEER" "$WORK" "${LANCET_CORPUS_DIR:-$BUILD_DIR/corpus}/data"
rc=$?
if [ "$rc" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
  rm -rf "$WORK"
else
  printf 'update_interop: outputs kept in %s\n' "$WORK" >&2
fi
exit "$rc"
