#!/usr/bin/env bash
# A throwaway Ceph radosgw on 127.0.0.1 for the S3 tests: one monitor, one memstore OSD
# (objects live in the OSD's memory), no auth inside the cluster, one S3 user.
#
#   scripts/s3-server.sh start   # starts (or reuses a running one), prints export lines
#   scripts/s3-server.sh env     # prints the export lines of the running server
#   scripts/s3-server.sh stop
#
# eval "$(scripts/s3-server.sh start)" sets AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ALLOW_HTTP and LANCET_TEST_BUCKET.
# Every wait is bounded; a failure prints the logs' tails on stderr and exits 1.
set -euo pipefail

STATE="${LANCET_S3_STATE:-${XDG_CACHE_HOME:-$HOME/.cache}/lancet-s3}"
RGW_PORT="${LANCET_S3_PORT:-17480}"
MON_PORT="${LANCET_S3_MON_PORT:-13300}"
BUCKET="${LANCET_TEST_BUCKET:-lancet-test}"
ACCESS=AKLANCETTEST
SECRET=SKLANCETTEST
ENDPOINT="http://127.0.0.1:$RGW_PORT"
C="$STATE/ceph.conf"

log() { printf 's3-server: %s\n' "$*" >&2; }
die() {
  log "$*"
  for f in "$STATE"/log/*.log; do
    [ -f "$f" ] && { log "--- tail of $f"; tail -n 15 "$f" >&2; }
  done
  exit 1
}

print_env() {
  cat <<EOS
export AWS_ENDPOINT_URL=$ENDPOINT
export AWS_ACCESS_KEY_ID=$ACCESS
export AWS_SECRET_ACCESS_KEY=$SECRET
export AWS_REGION=us-east-1
export AWS_ALLOW_HTTP=true
export LANCET_TEST_BUCKET=$BUCKET
EOS
}

alive() { [ -f "$STATE/run/$1.pid" ] && kill -0 "$(cat "$STATE/run/$1.pid")" 2>/dev/null; }
responding() { curl -s -o /dev/null --max-time 2 "$ENDPOINT/"; }

# wait_for SECONDS DESCRIPTION COMMAND...: polls every half second.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  for _ in $(seq $((seconds * 2))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  die "timed out after ${seconds}s waiting for $what"
}

create_bucket() {
  # 200 on creation, 409 BucketAlreadyOwnedByYou on a reused server: both are fine.
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --aws-sigv4 aws:amz:us-east-1:s3 \
    --user "$ACCESS:$SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -X PUT "$ENDPOINT/$BUCKET")
  [ "$code" = 200 ] || [ "$code" = 409 ] || die "creating bucket $BUCKET gave HTTP $code"
}

stop() {
  for d in radosgw osd.0 mon.a; do
    if alive "$d"; then
      local pid
      pid=$(cat "$STATE/run/$d.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$STATE"
}

start() {
  if alive radosgw && alive osd.0 && alive mon.a && responding; then
    create_bucket
    print_env
    return
  fi
  command -v radosgw >/dev/null 2>&1 || "$(dirname "$0")/install-deps.sh" --s3-only
  stop
  mkdir -p "$STATE"/{mon,osd0,run,log,rgw}
  local fsid
  fsid=$(cat /proc/sys/kernel/random/uuid)
  cat >"$C" <<EOC
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$MON_PORT
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail crit = 1
mon data avail warn = 2
osd crush chooseleaf type = 0
run dir = $STATE/run
admin socket = $STATE/run/\$name.asok
log file = $STATE/log/\$name.log
pid file = $STATE/run/\$name.pid
ms bind ipv6 = false
[mon.a]
mon data = $STATE/mon
[osd.0]
osd data = $STATE/osd0
osd objectstore = memstore
memstore device bytes = 2147483648
[client.rgw.lancet]
# tcp_nodelay: without it small responses wait out the client's delayed ACK (~40 ms each).
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT tcp_nodelay=1
rgw data = $STATE/rgw
rgw dns name = localhost
pid file = $STATE/run/radosgw.pid
# Without this radosgw insists on secure mode, impossible with auth none, and hangs
# fetching the monitor's config.
ms mon client mode = crc secure
EOC
  touch "$STATE/keyring"
  monmaptool --create --addv a "[v2:127.0.0.1:$MON_PORT]" --fsid "$fsid" "$STATE/monmap" >/dev/null
  timeout 60 ceph-mon -c "$C" --mkfs -i a --monmap "$STATE/monmap" --keyring "$STATE/keyring" ||
    die "ceph-mon --mkfs failed"
  timeout 30 ceph-mon -c "$C" -i a >>"$STATE/log/daemons.out" 2>&1 || die "ceph-mon did not start"
  local uuid
  uuid=$(cat /proc/sys/kernel/random/uuid)
  timeout 60 ceph -c "$C" osd new "$uuid" 0 >/dev/null || die "ceph osd new failed"
  timeout 60 ceph-osd -c "$C" -i 0 --mkfs --osd-uuid "$uuid" >/dev/null 2>&1 || die "ceph-osd --mkfs failed"
  timeout 60 ceph -c "$C" osd crush add osd.0 1.0 host=localhost root=default >/dev/null 2>&1 ||
    die "ceph osd crush add failed"
  timeout 30 ceph-osd -c "$C" -i 0 >>"$STATE/log/daemons.out" 2>&1 || die "ceph-osd did not start"
  wait_for 60 "the OSD to come up" bash -c "timeout 10 ceph -c '$C' osd stat 2>/dev/null | grep -q '1 up'"
  timeout 30 radosgw -c "$C" -n client.rgw.lancet >>"$STATE/log/daemons.out" 2>&1 || die "radosgw did not start"
  wait_for 90 "radosgw on $ENDPOINT" responding
  timeout 60 radosgw-admin -c "$C" user create --uid=lancet --display-name=lancet \
    --access-key="$ACCESS" --secret="$SECRET" >/dev/null 2>&1 || die "radosgw-admin user create failed"
  wait_for 30 "bucket creation" create_bucket_quiet
  print_env
}

create_bucket_quiet() {
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --aws-sigv4 aws:amz:us-east-1:s3 \
    --user "$ACCESS:$SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -X PUT "$ENDPOINT/$BUCKET")
  [ "$code" = 200 ] || [ "$code" = 409 ]
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env)
    alive radosgw && responding || { log "no server running (state in $STATE)"; exit 1; }
    print_env
    ;;
  *)
    echo "usage: $0 start|stop|env" >&2
    exit 2
    ;;
esac
