#!/usr/bin/env bash
# legacy_versions.sh BUILD_DIR
#
# Interop test for older Lance file versions: the reference peer writes one dataset
# per data storage version (2.0 and 2.1) covering every type the 2.0 encodings
# handle (ints, floats, bool, dates, timestamps, utf8/binary and their large forms,
# fixed-size binary, fixed-size lists, lists, structs, nested lists/structs,
# dictionary-encoded strings, all-null and constant columns, with nulls), in two
# versions (create + append). dump.mjs gives the expected JSON, `lancet dump
# --all-versions` the actual one, and check.mjs compares them.
#
# Environment: LANCET_PEER_HARNESS, LANCE_PEER_DIR, as for run_interop.sh;
# LANCET_INTEROP_KEEP=1 keeps the temp dir (kept anyway on failure).
#
# Prints one line per dataset, then "N passed, M failed" (datasets). Exit 0 only
# when every dataset passed.
set -uo pipefail

die() { printf 'legacy_versions: %s\n' "$*" >&2; exit 2; }

[ $# -eq 1 ] || { printf 'usage: legacy_versions.sh BUILD_DIR\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET (build the 'lancet' target)"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
PEER_SETUP_QUIET=1 . "$REPO/tests/interop/peer_env.sh"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-legacy.XXXXXX")" || die "cannot create a temp dir"
failed=1
cleanup() {
  if [ "$failed" -eq 0 ] && [ "${LANCET_INTEROP_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    printf 'legacy_versions: outputs kept in %s\n' "$WORK" >&2
  fi
}
trap cleanup EXIT

# gen.mjs OUT_DIR VERSION: a 300-row table (enough rows for the 2.0 writer's
# dictionary encoding of low-cardinality strings), then a 50-row append.
cat >"$WORK/gen.mjs" <<'JS'
import { createRequire } from "module";
const peerDir = process.env.LANCE_PEER_DIR;
const require = createRequire(peerDir + "/package.json");
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");
const [outDir, version] = process.argv.slice(2);
const N = 300;
let seed = 12345;
const rnd = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed / 4294967296; };
const maybe = (p, v) => (rnd() < p ? null : v);
const col = (f) => Array.from({ length: N }, (_, i) => f(i));
const A = arrow;
const mk = (type, vals) => A.vectorFromArray(vals, type);
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
const fields = [];
const vecs = {};
function add(name, type, vals, nullable = true) {
  fields.push(new A.Field(name, type, nullable));
  vecs[name] = mk(type, vals);
}
add("id", new A.Int64(), col((i) => BigInt(i)), false);
add("i8", new A.Int8(), col((i) => maybe(0.2, (i % 200) - 100)));
add("i16", new A.Int16(), col((i) => maybe(0.2, i * 7 - 1000)));
add("i32", new A.Int32(), col((i) => maybe(0.1, i * 100003 - 7)));
add("u8", new A.Uint8(), col((i) => maybe(0.2, i % 256)));
add("u16", new A.Uint16(), col((i) => maybe(0.2, i * 3)));
add("u32", new A.Uint32(), col((i) => i * 11));
add("u64", new A.Uint64(), col((i) => maybe(0.3, BigInt(i) * 1000000007n)));
add("f32", new A.Float32(), col((i) => maybe(0.2, i / 8)));
add("f64", new A.Float64(), col((i) => maybe(0.2, i * 1.5 - 3)));
add("b", new A.Bool(), col((i) => maybe(0.2, i % 3 === 0)));
add("d32", new A.DateDay(), col((i) => maybe(0.2, new Date(86400000 * (i + 18000)))));
add("ts", new A.TimestampMicrosecond(), col((i) => maybe(0.2, 1700000000000 + i * 1000)));
add("s", new A.Utf8(), col((i) => maybe(0.2, "str-" + i + "-" + "x".repeat(i % 7))));
add("dict_s", new A.Utf8(), col((i) => maybe(0.1, words[i % words.length])));
add("ls", new A.LargeUtf8(), col((i) => maybe(0.2, "large" + i)));
add("bin", new A.Binary(), col((i) => maybe(0.2, Uint8Array.from([i & 255, 1, 2].slice(0, i % 4)))));
add("lbin", new A.LargeBinary(), col((i) => maybe(0.2, Uint8Array.from([9, i & 255]))));
add("fsb", new A.FixedSizeBinary(4), col((i) => maybe(0.2, Uint8Array.from([i & 255, 2, 3, 4]))));
add("fsl", new A.FixedSizeList(3, new A.Field("item", new A.Float32(), true)),
    col((i) => maybe(0.2, [i, i + 0.5, i % 5 === 0 ? null : -i])));
add("lst", new A.List(new A.Field("item", new A.Int32(), true)),
    col((i) => maybe(0.2, Array.from({ length: i % 4 }, (_, k) => (k === 1 && i % 5 === 0 ? null : i + k)))));
add("lst_s", new A.List(new A.Field("item", new A.Utf8(), true)),
    col((i) => maybe(0.2, Array.from({ length: i % 3 }, (_, k) => words[(i + k) % 6] + i))));
add("st", new A.Struct([new A.Field("x", new A.Int32(), true), new A.Field("y", new A.Utf8(), true)]),
    col((i) => ({ x: i % 4 === 0 ? null : i, y: i % 5 === 0 ? null : "y" + i })));
add("lst_st", new A.List(new A.Field("item", new A.Struct([new A.Field("p", new A.Int64(), true)]), true)),
    col((i) => maybe(0.2, Array.from({ length: i % 3 }, (_, k) => ({ p: BigInt(i * 10 + k) })))));
add("st_lst", new A.Struct([new A.Field("q", new A.List(new A.Field("item", new A.Int16(), true)), true)]),
    col((i) => ({ q: i % 6 === 0 ? null : [i % 100, 1] })));
add("all_null", new A.Int32(), col(() => null));
add("const_i", new A.Int32(), col(() => 42));
const schema = new A.Schema(fields);
const table = new A.Table(schema, vecs);
const db = await lancedb.connect(outDir);
const opts = { mode: "overwrite", storageOptions: { new_table_data_storage_version: version } };
const t = await db.createTable("types", table, opts);
// A second fragment/version so --all-versions has history and multiple files.
const rows2 = table.slice(0, 50);
await t.add(rows2);
console.log("ok", await t.countRows());
JS

passed=0
failed=0
for version in 2.0 2.1; do
  name="v${version/./_}"
  dir="$WORK/$name"
  if ! node "$WORK/gen.mjs" "$dir" "$version" >"$WORK/$name.gen.log" 2>&1; then
    cat "$WORK/$name.gen.log" >&2
    printf 'FAIL %s: the peer could not write it\n' "$name"
    failed=$((failed + 1))
    continue
  fi
  ds="$dir/types.lance"
  if ! node "$PEER/dump.mjs" "$ds" --all-versions --out "$WORK/$name.expected.json" 2>"$WORK/$name.peer.err"; then
    cat "$WORK/$name.peer.err" >&2
    printf 'FAIL %s: dump.mjs failed\n' "$name"
    failed=$((failed + 1))
    continue
  fi
  if ! "$LANCET" dump "$ds" --all-versions >"$WORK/$name.actual.json" 2>"$WORK/$name.lancet.err"; then
    printf 'FAIL %s: lancet dump failed: %s\n' "$name" "$(head -c 400 "$WORK/$name.lancet.err")"
    failed=$((failed + 1))
    continue
  fi
  if node "$PEER/check.mjs" "$WORK/$name.expected.json" "$WORK/$name.actual.json" >"$WORK/$name.check.log" 2>&1; then
    printf 'ok   %s: %s\n' "$name" "$(tail -n 1 "$WORK/$name.check.log")"
    passed=$((passed + 1))
  else
    printf 'FAIL %s:\n' "$name"
    head -n 20 "$WORK/$name.check.log"
    failed=$((failed + 1))
  fi
done
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
