#!/usr/bin/env bash
# setup.sh [INSTALL_DIR]
#
# Installs the independent readers that Lancet's Parquet, Avro and Iceberg output is
# checked against (DuckDB's node package, avsc, icebird, iceberg-js), pinned by the
# package-lock.json next to this script, into INSTALL_DIR (else $LANCET_VALIDATORS_DIR,
# else ${XDG_CACHE_HOME:-$HOME/.cache}/lancet-validators). Idempotent: an install whose
# lock matches is kept. Prints one line: the node_modules directory to use as NODE_PATH.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
fail() { printf 'validators setup: ERROR: %s\n' "$*" >&2; exit 1; }
case "${1:-}" in -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
DEST="${1:-${LANCET_VALIDATORS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lancet-validators}}"
command -v npm >/dev/null 2>&1 || fail "npm not found (need node >= 20)"
mkdir -p "$DEST" || fail "cannot create $DEST"
# The lock is the install's identity: a changed pin reinstalls.
if ! cmp -s "$HERE/package-lock.json" "$DEST/package-lock.json" || [ ! -d "$DEST/node_modules/@duckdb/node-api" ]; then
  cp "$HERE/package.json" "$HERE/package-lock.json" "$DEST/"
  chmod u+w "$DEST/package.json" "$DEST/package-lock.json"
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error >&2) || fail "npm ci failed in $DEST"
fi
printf '%s\n' "$DEST/node_modules"
