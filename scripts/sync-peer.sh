#!/usr/bin/env bash
# The project keeps its own copy of the reference-peer harness in tests/peer, so a bare
# clone runs the demo, the interop tests and the benchmarks. The team's master copy lives
# in ../shared/peer; this script is the only place in the project that knows about it.
#
#   scripts/sync-peer.sh [--check] [SOURCE_DIR]
#
# SOURCE_DIR: the master harness; default $LANCET_SHARED_DIR/peer, else ../shared/peer
# beside the repository.
#   (no flag)  copy every file that differs from SOURCE_DIR into tests/peer, remove files
#              the source no longer has, and list what changed.
#   --check    change nothing; exit 1 listing the files that differ, 0 when identical,
#              77 (CTest's skip code) when there is no source to compare with.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
DEST="$REPO/tests/peer"
CHECK=0
SRC=""
for a in "$@"; do
  case "$a" in
    --check) CHECK=1 ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sync-peer: unknown option $a" >&2; exit 64 ;;
    *) SRC="$a" ;;
  esac
done
if [ -z "$SRC" ]; then
  if [ -n "${LANCET_SHARED_DIR:-}" ]; then SRC="$LANCET_SHARED_DIR/peer"; else SRC="$REPO/../shared/peer"; fi
fi
if [ ! -f "$SRC/setup.sh" ]; then
  echo "sync-peer: no master harness at $SRC; nothing to compare"
  exit 77
fi
SRC="$(cd "$SRC" && pwd -P)"

# The harness's own files: what git would track there (installs and locks are ignored).
list() {
  (cd "$1" && find . -path ./node_modules -prune -o -type f -print |
    grep -v -E '^\./(\.lance-peer-stamp|\.setup\.lock)$' | sed 's|^\./||' | LC_ALL=C sort)
}

changed=()
while IFS= read -r f; do
  if [ ! -f "$DEST/$f" ] || ! cmp -s "$SRC/$f" "$DEST/$f"; then changed+=("$f"); fi
done < <(list "$SRC")
removed=()
while IFS= read -r f; do
  [ -f "$SRC/$f" ] || removed+=("$f")
done < <(list "$DEST")

if [ "${#changed[@]}" -eq 0 ] && [ "${#removed[@]}" -eq 0 ]; then
  echo "sync-peer: tests/peer matches $SRC"
  exit 0
fi
if [ "$CHECK" = 1 ]; then
  echo "sync-peer: tests/peer differs from $SRC (run scripts/sync-peer.sh and commit):"
  for f in "${changed[@]}"; do echo "  changed: $f"; done
  for f in "${removed[@]}"; do echo "  only in tests/peer: $f"; done
  exit 1
fi
for f in "${changed[@]}"; do
  mkdir -p "$(dirname "$DEST/$f")"
  cp "$SRC/$f" "$DEST/$f"
  # The master copy is read-only in CI; the project's copy stays editable.
  chmod u+w "$DEST/$f"
  echo "sync-peer: updated $f"
done
for f in "${removed[@]}"; do
  rm -f "$DEST/$f"
  echo "sync-peer: removed $f"
done
