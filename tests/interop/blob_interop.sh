#!/usr/bin/env bash
# blob_interop.sh BUILD_DIR
#
# Blob V2 datasets written by Lancet, read by the reference peer (tests/peer).
# BUILD_DIR/bin/blob_interop_write (tests/interop/blob_write_main.cc) writes:
#   default_kinds      default thresholds at and +-1 of 64 KiB and 4 MiB, two data files
#   custom_thresholds  thresholds from field metadata (inline 100 / dedicated 1000 /
#                      pack 2000, a pack filled to exactly 2000 and roll-overs), and a
#                      non-nullable second column sharing the file's sidecar ids
#   nested_blob        a blob inside a struct (null parents) next to a top-level one
#   binary_as_blob     binary and large_binary columns declared blob at write time
#   external           kind 3: absolute URIs (blob_id 0) and paths under a registered
#                      base (blob_id 1), whole objects and ranges
#   copied             BlobUriMode::kCopy of local files, whole and ranges
# with nulls and empty blobs throughout, plus expected/<name>.json and
# layout/<name>.json. For each dataset:
#   1. dump.mjs (the reference) must read it, and check.mjs --blob kind must find the
#      expected schema, descriptor kinds and sizes, and payload sha256 of every row;
#   2. the reference's descriptors must show the expected layout: pack positions,
#      values of one pack sharing a blob_id, distinct ids for distinct sidecars of a
#      data file, external blob_id/blob_uri;
#   3. if BUILD_DIR/bin/lancet exists, `lancet dump` must equal the reference's dump
#      in full (descriptors included).
#
# Environment: as run_interop.sh (LANCET_PEER_HARNESS, LANCE_PEER_DIR,
# LANCET_INTEROP_KEEP=1 keeps the temp dir). Prints PASS/FAIL per check, then
# "N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

die() { printf 'blob_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: blob_interop.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
GEN="$BUILD_DIR/bin/blob_interop_write"
[ -x "$GEN" ] || die "generator not found: $GEN (build the 'blob_interop_write' target)"
LANCET="$BUILD_DIR/bin/lancet"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-blob-interop.XXXXXX")" || die "cannot create a temp dir"
cleanup() {
  if [ "${failed:-1}" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'blob_interop: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

passed=0
failed=0
pass() { printf 'PASS %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf 'FAIL %s\n' "$*"; failed=$((failed + 1)); }

# check.mjs EXPECTED ACTUAL ARGS... as one PASS/FAIL line named LABEL.
check() {
  local label="$1" expected="$2" actual="$3"
  shift 3
  local out="$WORK/check.$RANDOM.txt"
  if node "$PEER/check.mjs" "$expected" "$actual" --max-diffs 20 "$@" >"$out" 2>&1; then
    pass "$label ($(tail -n 1 "$out"))"
  else
    fail "$label:"
    sed 's/^/    /' "$out"
  fi
}

# Checks the reference's descriptors in dump $2 against layout $1; prints problems,
# or "N values" when there are none (exit 1 then 0).
layout_check() {
  node -e '
    const fs = require("fs");
    const layout = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const dump = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    const rows = new Map(dump.snapshots.at(-1).rows.map((r) => [String(r.id), r]));
    const kinds = ["inline", "packed", "dedicated", "external"];
    const problems = [];
    const idOfSidecar = new Map(); // expected sidecar label -> blob_id seen
    const sidecarOfId = new Map(); // "<fragment>/<blob_id>" -> expected sidecar label
    for (const e of layout) {
      const where = `row id=${e.id} column ${e.column}`;
      let cell = rows.get(String(e.id));
      for (const p of e.column.split(".")) cell = cell?.[p];
      const d = cell?.descriptor;
      if (!d) { problems.push(`${where}: no descriptor`); continue; }
      if (kinds[d.kind] !== e.kind) problems.push(`${where}: kind ${kinds[d.kind] ?? d.kind}, expected ${e.kind}`);
      if (e.position !== undefined && String(d.position) !== e.position)
        problems.push(`${where}: position ${d.position}, expected ${e.position}`);
      if (e.blob_id !== undefined && d.blob_id !== e.blob_id) problems.push(`${where}: blob_id ${d.blob_id}, expected ${e.blob_id}`);
      if (e.blob_uri !== undefined && d.blob_uri !== e.blob_uri)
        problems.push(`${where}: blob_uri ${JSON.stringify(d.blob_uri)}, expected ${JSON.stringify(e.blob_uri)}`);
      if (e.pack === undefined) continue;
      // Values of one sidecar share its id; a data file gives each sidecar its own id >= 1.
      if (!(d.blob_id >= 1)) problems.push(`${where}: sidecar blob_id ${d.blob_id}, expected >= 1`);
      if (idOfSidecar.has(e.pack) && idOfSidecar.get(e.pack) !== d.blob_id)
        problems.push(`${where}: blob_id ${d.blob_id}, but ${e.pack} already has ${idOfSidecar.get(e.pack)}`);
      idOfSidecar.set(e.pack, d.blob_id);
      const key = `${BigInt(rows.get(String(e.id))._rowaddr) >> 32n}/${d.blob_id}`;
      if (sidecarOfId.has(key) && sidecarOfId.get(key) !== e.pack)
        problems.push(`${where}: blob_id ${d.blob_id} is shared by ${e.pack} and ${sidecarOfId.get(key)}`);
      sidecarOfId.set(key, e.pack);
    }
    if (problems.length) { console.log(problems.slice(0, 20).join("\n")); process.exit(1); }
    console.log(`${layout.length} values, ${idOfSidecar.size} sidecars`);
  ' "$1" "$2"
}

if ! "$GEN" "$WORK/out" >"$WORK/gen.log" 2>&1; then
  cat "$WORK/gen.log" >&2
  die "blob_interop_write failed"
fi
count=0
for data in "$WORK"/out/data/*.lance; do
  name="$(basename "$data" .lance)"
  count=$((count + 1))
  peer="$WORK/$name.peer.json"
  if ! node "$PEER/dump.mjs" "$data" --no-history >"$peer" 2>"$WORK/$name.dump.err"; then
    fail "$name: the reference cannot read it: $(head -c 2000 "$WORK/$name.dump.err")"
    continue
  fi
  check "$name: reference reads the expected kinds, sizes and bytes" "$WORK/out/expected/$name.json" "$peer" \
    --no-history --blob kind --match key:id
  if out="$(layout_check "$WORK/out/layout/$name.json" "$peer" 2>&1)"; then
    pass "$name: layout ($out)"
  else
    fail "$name: layout:"
    printf '%s\n' "$out" | sed 's/^/    /'
  fi
  if [ -x "$LANCET" ]; then
    if "$LANCET" dump "$data" --no-history --out "$WORK/$name.lancet.json" 2>"$WORK/$name.lancet.err"; then
      check "$name: lancet dump equals the reference's" "$peer" "$WORK/$name.lancet.json" --no-history
    else
      fail "$name: lancet dump: $(head -c 2000 "$WORK/$name.lancet.err")"
    fi
  fi
done
[ "$count" -eq 6 ] || fail "expected 6 datasets from blob_interop_write, got $count"
[ -x "$LANCET" ] || printf 'blob_interop: %s not built; lancet dump comparison skipped\n' "$LANCET" >&2

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
