#!/usr/bin/env bash
# write_interop.sh BUILD_DIR
#
# Write interop acceptance test against the reference peer (tests/peer):
#  1. Round trip: for every dataset of the public corpus (seed 42), `lancet export`
#     (blob columns left out with --skip-blobs: blobs cannot be written yet) then
#     `lancet import` into a fresh dataset; dump.mjs (the reference) reads ours and
#     the original (latest snapshot, --no-history) and check.mjs compares the two.
#  2. History: a lancet-written dataset gets appends, `delete --where`, `delete
#     --rows`, tags and a restore through the CLI; the reference's --all-versions
#     dump must match `lancet dump --all-versions`, and its row counts known values.
#  3. Mixed histories (mixed_history.mjs): each side appends to and deletes from
#     the other's dataset, and both read every version the same.
#
# Environment: as run_interop.sh (LANCET_PEER_HARNESS, LANCE_PEER_DIR,
# LANCET_INTEROP_KEEP=1 keeps the temp dir). Prints PASS/FAIL per check, then
# "N passed, M failed"; exit 0 only when nothing failed.
set -uo pipefail

die() { printf 'write_interop: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: write_interop.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-write-interop.XXXXXX")" || die "cannot create a temp dir"
cleanup() {
  if [ "${failed:-1}" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'write_interop: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

passed=0
failed=0
pass() { printf 'PASS %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf 'FAIL %s\n' "$*"; failed=$((failed + 1)); }

# Sets every snapshot's version to 1 so that a one-version copy lines up with the
# original's latest snapshot, and drops the top-level columns named in $2
# (comma-separated: blob columns export left out) from schemas and rows.
renumber() {
  node -e '
    const fs = require("fs");
    const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const drop = new Set((process.argv[2] || "").split(",").filter((c) => c));
    for (const s of d.snapshots) {
      s.version = 1;
      s.schema.fields = s.schema.fields.filter((f) => !drop.has(f.name));
      if (s.blob_columns) s.blob_columns = s.blob_columns.filter((c) => !drop.has(c.split(".")[0]));
      for (const r of s.rows) for (const c of drop) delete r[c];
    }
    delete d.versions; delete d.tags; delete d.latest_version;
    fs.writeFileSync(process.argv[1], JSON.stringify(d));
  ' "$1" "${2:-}"
}

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

# Runs a lancet command; on failure records LABEL as failed and returns 1.
lancet_ok() {
  local label="$1"
  shift
  if ! "$LANCET" "$@" >"$WORK/lancet.out" 2>"$WORK/lancet.err"; then
    fail "$label: lancet $*: $(head -c 2000 "$WORK/lancet.err")"
    return 1
  fi
}

# --- 1. export/import round trip of the corpus --------------------------------
corpus="$WORK/corpus"
if ! node "$PEER/gen.mjs" "$corpus" --seed 42 >"$WORK/gen.log" 2>&1; then
  cat "$WORK/gen.log" >&2
  die "gen.mjs failed"
fi
mkdir -p "$WORK/rt"
for data in "$corpus"/data/*.lance; do
  name="$(basename "$data" .lance)"
  label="roundtrip/$name"
  arrows="$WORK/rt/$name.arrows"
  ours="$WORK/rt/$name.lance"
  if ! "$LANCET" export "$data" "$arrows" --skip-blobs >/dev/null 2>"$WORK/rt/$name.export.err"; then
    fail "$label: lancet export: $(head -c 2000 "$WORK/rt/$name.export.err")"
    continue
  fi
  # "lancet: DIR: leaving out blob columns: a, b" names what to ignore.
  skipped="$(sed -n 's/.*leaving out blob columns: //p' "$WORK/rt/$name.export.err" | tr -d ' ')"
  lancet_ok "$label" import "$arrows" "$ours" || continue
  node "$PEER/dump.mjs" "$data" --no-history >"$WORK/rt/$name.orig.json" 2>"$WORK/rt/$name.dump.err" &&
    node "$PEER/dump.mjs" "$ours" --no-history >"$WORK/rt/$name.ours.json" 2>>"$WORK/rt/$name.dump.err" || {
    fail "$label: dump.mjs: $(head -c 2000 "$WORK/rt/$name.dump.err")"
    continue
  }
  renumber "$WORK/rt/$name.orig.json" "$skipped"
  renumber "$WORK/rt/$name.ours.json"
  match=position
  grep -q '"name":"id"' "$WORK/rt/$name.orig.json" && match=key:id
  [ -n "$skipped" ] && label="$label (blob columns left out: $skipped)"
  check "$label" "$WORK/rt/$name.orig.json" "$WORK/rt/$name.ours.json" \
    --no-history --no-fragments --match "$match" --ignore-cols _rowid,_rowaddr
done

# --- 2. a history written by lancet, read by the reference --------------------
hist="$WORK/hist/history.lance"
mkdir -p "$WORK/hist"
( set -e
  "$LANCET" import "$WORK/rt/types.arrows" "$hist" --max-rows-per-file 1000
  "$LANCET" tag "$hist" create first
  "$LANCET" export "$hist" "$WORK/hist/head.arrow" --format file
  "$LANCET" import "$WORK/hist/head.arrow" "$hist" --mode append
  "$LANCET" delete "$hist" --where "id < 100 OR (i32 > 0 AND i32 < 1000000) OR s_n IS NULL"
  "$LANCET" tag "$hist" create after_delete
  "$LANCET" delete "$hist" --rows 4294967296,4294967297,8589934592
  "$LANCET" import "$WORK/rt/types.arrows" "$hist" --mode append --max-rows-per-file 700
  "$LANCET" tag "$hist" create tmp 2
  "$LANCET" tag "$hist" delete tmp
  "$LANCET" restore "$hist" 3
) >"$WORK/hist/log" 2>&1 || fail "history: lancet commands failed: $(tail -c 2000 "$WORK/hist/log")"
if "$LANCET" dump "$hist" --all-versions --out "$WORK/hist/ours.json" 2>"$WORK/hist/dump.err" &&
  node "$PEER/dump.mjs" "$hist" --all-versions >"$WORK/hist/peer.json" 2>>"$WORK/hist/dump.err"; then
  check "history: the reference reads lancet's appends, deletes, tags and restore" \
    "$WORK/hist/ours.json" "$WORK/hist/peer.json"
  # Known values: 3500 rows, 7000 after the self-append, the --where delete, three
  # fewer after --rows, 3500 more after the append, then version 3's count again.
  counts="$(node -e '
    const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    process.stdout.write(d.versions.map((v) => v.num_rows).join(" ") + " | " + JSON.stringify(d.tags));
  ' "$WORK/hist/peer.json")"
  read -r n1 n2 n3 n4 n5 n6 _ <<<"$counts"
  if [ "$n1" = 3500 ] && [ "$n2" = 7000 ] && [ "$n3" -lt 7000 ] && [ "$n4" = $((n3 - 3)) ] &&
    [ "$n5" = $((n4 + 3500)) ] && [ "$n6" = "$n3" ] && [[ "$counts" == *'| {"after_delete":3,"first":1}' ]]; then
    pass "history: reference versions/tags ($counts)"
  else
    fail "history: reference versions/tags are '$counts'"
  fi
else
  fail "history: dump failed: $(head -c 2000 "$WORK/hist/dump.err")"
fi

# --- 3. mixed histories --------------------------------------------------------
if node "$HERE/mixed_history.mjs" "$LANCET" "$PEER" "$WORK/mixed" >"$WORK/mixed.log" 2>&1; then
  pass "mixed histories ($(grep -c '^PASS' "$WORK/mixed.log") checks)"
else
  fail "mixed histories:"
  sed 's/^/    /' "$WORK/mixed.log"
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
