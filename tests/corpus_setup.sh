#!/usr/bin/env bash
# corpus_setup.sh OUT_DIR: generates the reference corpus (seed 42) with the peer,
# once. Without node or the peer it prints why and exits 0: the corpus-based unit
# tests then skip, while the interop test (which needs the peer) fails loudly.
set -euo pipefail
OUT="$1"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PEER="${LANCET_PEER_HARNESS:-$REPO/tests/peer}"
if [ -f "$OUT/MANIFEST.json" ]; then echo "corpus: present in $OUT"; exit 0; fi
if ! command -v node >/dev/null 2>&1 || [ ! -f "$PEER/gen.mjs" ]; then
  echo "corpus: node or the peer harness is missing; corpus-based tests will skip"; exit 0
fi
line="$("$PEER/setup.sh")"
export LANCE_PEER_DIR="${line##*use LANCE_PEER_DIR=}"
rm -rf "$OUT.tmp"
node "$PEER/gen.mjs" "$OUT.tmp" --seed 42 | tail -1
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
