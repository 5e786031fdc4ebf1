#!/usr/bin/env bash
# validators_interop.sh NAME BUILD_DIR [ARG...]
#
# Runs the node script NAME.mjs (next to this file) against the independent validators
# (DuckDB's node package and others, tests/validators/setup.sh) instead of the Lance peer:
#   node NAME.mjs LANCET NODE_MODULES WORK [ARG...]
# WORK is a fresh temp dir, removed when the script passes unless LANCET_INTEROP_KEEP=1.
# Exits 77 (skipped) without node.
set -uo pipefail

NAME="${1:-}"
die() { printf '%s: %s\n' "${NAME:-validators_interop}" "$*" >&2; exit 2; }

[ $# -ge 2 ] || { printf 'usage: validators_interop.sh NAME BUILD_DIR [ARG...]\n' >&2; exit 64; }
command -v node >/dev/null 2>&1 || { printf '%s: node not found (the validators need node >= 20), skipped\n' "$NAME"; exit 77; }
BUILD_DIR="$(cd "$2" 2>/dev/null && pwd -P)" || die "build dir not found: $2"
shift 2
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
[ -f "$HERE/$NAME.mjs" ] || die "no script $HERE/$NAME.mjs"
NODE_MODULES="$("$REPO/tests/validators/setup.sh")" || die "validators setup failed (see above)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-$NAME.XXXXXX")" || die "cannot create a temp dir"
nice node "$HERE/$NAME.mjs" "$LANCET" "$NODE_MODULES" "$WORK" "$@"
rc=$?
if [ "$rc" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
  rm -rf "$WORK"
else
  printf '%s: outputs kept in %s\n' "$NAME" "$WORK" >&2
fi
exit "$rc"
