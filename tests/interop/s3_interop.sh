#!/usr/bin/env bash
# s3_interop.sh BUILD_DIR
#
# Lancet and the reference on one S3 server (scripts/s3-server.sh): a history Lancet
# writes to s3:// (create, append, delete, tag; blobs inline and packed) is read by the
# reference, and a dataset the reference writes to s3:// is read by Lancet; external
# blobs with s3:// URIs that Lancet writes (local and S3 datasets) are read by the
# reference; check.mjs compares the two sides' dumps. Exits 77 (skipped) without AWS_ENDPOINT_URL and
# LANCET_TEST_BUCKET.
set -uo pipefail

die() { printf 's3_interop: %s\n' "$*" >&2; exit 2; }
[ $# -eq 1 ] || { printf 'usage: s3_interop.sh BUILD_DIR\n' >&2; exit 64; }
if [ -z "${AWS_ENDPOINT_URL:-}" ] || [ -z "${LANCET_TEST_BUCKET:-}" ]; then
  echo "s3_interop: skipped: no S3 server (eval \"\$(scripts/s3-server.sh start)\")"
  exit 77
fi
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd -P)" || die "build dir not found: $1"
LANCET="$BUILD_DIR/bin/lancet"
[ -x "$LANCET" ] || die "lancet binary not found: $LANCET"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
. "$REPO/scripts/env.sh"
PEER_SETUP_QUIET=1
. "$REPO/tests/interop/peer_env.sh"
export PEER

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-s3-interop.XXXXXX")" || die "cannot create a temp dir"
trap 'rm -rf "$WORK"' EXIT
BASE="s3://$LANCET_TEST_BUCKET/interop-$$-$RANDOM"
passed=0
failed=0
pass() { printf 'PASS %s\n' "$*"; passed=$((passed + 1)); }
fail() { printf 'FAIL %s\n' "$*"; failed=$((failed + 1)); }
run() {
  local label="$1"
  shift
  if "$@" >"$WORK/out.txt" 2>&1; then return 0; fi
  fail "$label:"
  sed 's/^/    /' "$WORK/out.txt"
  return 1
}
check() {
  local label="$1"
  shift
  if node "$PEER/check.mjs" "$@" --max-diffs 20 >"$WORK/check.txt" 2>&1; then
    pass "$label ($(tail -n 1 "$WORK/check.txt"))"
  else
    fail "$label:"
    sed 's/^/    /' "$WORK/check.txt"
  fi
}

# 1. Lancet writes a history on S3; the reference reads every version.
cat >"$WORK/schema.json" <<'EOS'
{"fields": [{"name": "id", "type": "int64"}, {"name": "name", "type": "utf8"},
            {"name": "data", "type": "large_binary"}]}
EOS
rows() {
  local from=$1 n=$2 i
  for ((i = from; i < from + n; i++)); do
    # Hex values: 10 bytes (inline) and 1500 bytes (packed) with the thresholds below.
    local len=$(( i % 2 == 0 ? 10 : 1500 ))
    printf '{"id":%d,"name":"r%d","data":"%s"}\n' "$i" "$i" "$(head -c "$len" /dev/zero | tr '\0' 'a' | sed 's/a/ab/g')"
  done
}
rows 0 40 >"$WORK/a.ndjson"
rows 40 20 >"$WORK/b.ndjson"
OURS="$BASE/ours.lance"
if run "lancet import to $OURS" "$LANCET" import "$WORK/a.ndjson" "$OURS" --schema "$WORK/schema.json" \
     --blob 'data:inline=100,dedicated=100000' &&
   run "lancet append" "$LANCET" import "$WORK/b.ndjson" "$OURS" --mode append --schema "$WORK/schema.json" \
     --blob 'data:inline=100,dedicated=100000' &&
   run "lancet delete" "$LANCET" delete "$OURS" --where "id < 5" &&
   run "lancet tag" "$LANCET" tag "$OURS" create first 1 &&
   run "lancet dump" "$LANCET" dump "$OURS" --all-versions --out "$WORK/ours.lancet.json"; then
  if run "reference dump of $OURS" bash -c "node '$HERE/s3_peer.mjs' dump '$OURS' --all-versions >'$WORK/ours.peer.json'"; then
    check "reference reads Lancet's S3 history" "$WORK/ours.lancet.json" "$WORK/ours.peer.json"
  fi
fi

# Credentials stay out of lancet's output, on success and on an auth failure.
if "$LANCET" info "$OURS" >"$WORK/info.txt" 2>&1 && grep -q "^Version: 3" "$WORK/info.txt" &&
   grep -qxF "Dataset: $OURS" "$WORK/info.txt" &&
   ! grep -qF -e "$AWS_SECRET_ACCESS_KEY" -e "$AWS_ACCESS_KEY_ID" "$WORK/info.txt"; then
  pass "lancet info on S3 names the s3:// URI and shows no credentials"
else
  fail "lancet info on S3:"; sed 's/^/    /' "$WORK/info.txt"
fi
if ! "$LANCET" info "$OURS" --storage-option aws_secret_access_key=WRONG-SECRET-42 >"$WORK/bad.txt" 2>&1 &&
   grep -q "HTTP 403" "$WORK/bad.txt" && ! grep -qF "WRONG-SECRET-42" "$WORK/bad.txt"; then
  pass "a wrong secret gives HTTP 403 without echoing it"
else
  fail "wrong secret:"; sed 's/^/    /' "$WORK/bad.txt"
fi

# 2. The reference writes on S3; Lancet reads it.
THEIRS="$BASE/theirs.lance"
if run "reference write to $THEIRS" node "$HERE/s3_peer.mjs" write "$THEIRS" &&
   run "reference dump of $THEIRS" bash -c "node '$HERE/s3_peer.mjs' dump '$THEIRS' --all-versions >'$WORK/theirs.peer.json'" &&
   run "lancet dump of $THEIRS" bash -c "'$LANCET' dump '$THEIRS' --all-versions >'$WORK/theirs.lancet.json'"; then
  check "Lancet reads the reference's S3 dataset" "$WORK/theirs.peer.json" "$WORK/theirs.lancet.json"
  # And appends to it, which the reference then reads.
  if run "lancet append to $THEIRS" bash -c "'$LANCET' export '$THEIRS' '$WORK/t.arrows' && '$LANCET' import '$WORK/t.arrows' '$THEIRS' --mode append" &&
     run "lancet dump after append" bash -c "'$LANCET' dump '$THEIRS' >'$WORK/theirs2.lancet.json'" &&
     run "reference dump after append" bash -c "node '$HERE/s3_peer.mjs' dump '$THEIRS' >'$WORK/theirs2.peer.json'"; then
    check "reference reads Lancet's append to its S3 dataset" "$WORK/theirs2.lancet.json" "$WORK/theirs2.peer.json"
  fi
fi

# 3. External blobs named by s3:// URIs (kind 3): Lancet imports references to objects in
#    the bucket into a local dataset (absolute URIs, --allow-external) and into an S3
#    dataset (relative to a registered s3:// base); the reference reads both, resolving
#    the URIs with the storage options it opened the table with (lance 12 opens an
#    external URI with the dataset's store parameters).
KEY_BASE="${BASE#s3://"$LANCET_TEST_BUCKET"/}"
put_object() {  # KEY FILE: a plain PUT signed by curl (the payload left unsigned)
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 --aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
    -T "$2" "$AWS_ENDPOINT_URL/$LANCET_TEST_BUCKET/$1")
  [ "$code" = 200 ]
}
head -c 300000 /dev/urandom >"$WORK/a.bin"
head -c 4000 /dev/urandom >"$WORK/b.bin"
if put_object "$KEY_BASE/ext/a.bin" "$WORK/a.bin" &&
   put_object "$KEY_BASE/ext/sub/b.bin" "$WORK/b.bin"; then
  cat >"$WORK/ext_schema.json" <<'EOS'
{"fields": [{"name": "id", "type": "int64"},
            {"name": "doc", "type": "struct", "children": [{"name": "data", "type": "large_binary"},
                                                          {"name": "uri", "type": "utf8"}]}]}
EOS
  {
    printf '{"id":0,"doc":{"uri":"%s"}}\n' "$BASE/ext/a.bin"
    printf '{"id":1,"doc":{"data":"00112233"}}\n'
    printf '{"id":2,"doc":null}\n'
    printf '{"id":3,"doc":{"uri":"%s"}}\n' "$BASE/ext/sub/b.bin"
  } >"$WORK/ext.ndjson"
  LOCAL_EXT="$WORK/ext_local.lance"
  S3_EXT="$BASE/ext_s3.lance"
  if run "lancet import of s3:// references into $LOCAL_EXT" "$LANCET" import "$WORK/ext.ndjson" "$LOCAL_EXT" \
       --schema "$WORK/ext_schema.json" --blob doc --allow-external &&
     run "lancet import of s3:// references into $S3_EXT" "$LANCET" import "$WORK/ext.ndjson" "$S3_EXT" \
       --schema "$WORK/ext_schema.json" --blob doc --external-base "$BASE/ext"; then
    for ds in "$LOCAL_EXT" "$S3_EXT"; do
      tag="$(basename "$ds" .lance)"
      if run "lancet dump of $ds" bash -c "'$LANCET' dump '$ds' >'$WORK/$tag.lancet.json'" &&
         run "lancet blob get of $ds" bash -c "'$LANCET' blob get '$ds' doc 0 >'$WORK/$tag.a.bin' && cmp '$WORK/$tag.a.bin' '$WORK/a.bin'" &&
         run "reference dump of $ds" bash -c "node '$HERE/s3_peer.mjs' dump '$ds' >'$WORK/$tag.peer.json'"; then
        check "reference reads Lancet's s3:// external blobs ($tag)" "$WORK/$tag.lancet.json" "$WORK/$tag.peer.json"
      fi
    done
  fi
else
  fail "PUT of the external objects under $BASE/ext"
fi

printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
