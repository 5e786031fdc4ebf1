#!/usr/bin/env bash
# run_interop.sh BUILD_DIR
#
# Interop acceptance test: the reference peer (tests/peer) writes the public
# corpus for seeds 42 and 7, `lancet dump --all-versions` reads every dataset,
# and check.mjs compares each dump with the peer's expected/ document.
#
# Environment:
#   LANCET_PEER_HARNESS the peer harness to use; default: <repo>/tests/peer
#   LANCE_PEER_DIR      peer install dir; default ${XDG_CACHE_HOME:-$HOME/.cache}/lance-peer
#   LANCET_INTEROP_SEEDS  seeds to generate (default "42 7")
#   LANCET_INTEROP_KEEP   set to 1 to keep the temp dir (kept anyway on failure)
#
# Prints one line per dataset, then "N passed, M failed" (datasets). Exit 0 only
# when every dataset of every seed passed and none was skipped.
set -uo pipefail

die() { printf 'run_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: run_interop.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-interop.XXXXXX")" || die "cannot create a temp dir"
cleanup() {
  if [ "${failed:-1}" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'run_interop: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

passed=0
failed=0
for seed in ${LANCET_INTEROP_SEEDS:-42 7}; do
  corpus="$WORK/seed$seed"
  if ! node "$PEER/gen.mjs" "$corpus" --seed "$seed" >"$WORK/gen$seed.log" 2>&1; then
    cat "$WORK/gen$seed.log" >&2
    printf 'FAIL seed %s: gen.mjs failed\n' "$seed"
    failed=$((failed + 1))
    continue
  fi
  mkdir -p "$corpus/actual"
  shopt -s nullglob
  expected_files=("$corpus"/expected/*.json)
  data_dirs=("$corpus"/data/*.lance)
  shopt -u nullglob
  if [ ${#expected_files[@]} -eq 0 ]; then
    printf 'FAIL seed %s: gen.mjs produced no expected/*.json\n' "$seed"
    failed=$((failed + 1))
    continue
  fi
  # A dataset without expected output would go untested: count it as skipped.
  for d in "${data_dirs[@]}"; do
    name="$(basename "$d" .lance)"
    if [ ! -f "$corpus/expected/$name.json" ]; then
      printf 'FAIL seed%s/%s: skipped (no expected/%s.json)\n' "$seed" "$name" "$name"
      failed=$((failed + 1))
    fi
  done
  for exp in "${expected_files[@]}"; do
    name="$(basename "$exp" .json)"
    label="seed$seed/$name"
    data="$corpus/data/$name.lance"
    actual="$corpus/actual/$name.json"
    if [ ! -d "$data" ]; then
      printf 'FAIL %s: skipped (no data/%s.lance)\n' "$label" "$name"
      failed=$((failed + 1))
      continue
    fi
    start=$(date +%s%N)
    if ! "$LANCET" dump "$data" --all-versions --out "$actual" 2>"$corpus/actual/$name.err"; then
      printf 'FAIL %s: lancet dump failed: %s\n' "$label" "$(head -c 2000 "$corpus/actual/$name.err")"
      failed=$((failed + 1))
      continue
    fi
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    if node "$PEER/check.mjs" "$exp" "$actual" --max-diffs 20 >"$corpus/actual/$name.check" 2>&1; then
      printf 'PASS %s (%s; dump %d ms)\n' "$label" "$(tail -n 1 "$corpus/actual/$name.check")" "$ms"
      passed=$((passed + 1))
    else
      printf 'FAIL %s:\n' "$label"
      sed 's/^/    /' "$corpus/actual/$name.check"
      failed=$((failed + 1))
    fi
  done
done

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
