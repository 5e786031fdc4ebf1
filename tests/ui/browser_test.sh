#!/usr/bin/env bash
# The browser view of `lancet serve --ui` in headless Chromium (Debian's /usr/bin/chromium,
# driven by the npm package playwright-core that scripts/install-deps.sh puts in the
# cache): a table of three videos ingested through the video plugin and one of PNG
# images go under a namespace root; the server starts on 127.0.0.1 with a free port (and
# a second one with a token); browser_check.cjs loads the page, filters, opens a video row
# and an image row and waits for their images, then gives the second server's page its
# token; the screenshot is kept at SCREENSHOT.
#
#   tests/ui/browser_test.sh LANCET VIDEO_PLUGIN WORKDIR SCREENSHOT
#
# A missing browser or driver fails the test: it is installed by make deps.
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 LANCET VIDEO_PLUGIN WORKDIR SCREENSHOT" >&2
  exit 64
fi
LANCET=$1
PLUGIN=$2
WORK=$3
SHOT=$4
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
CHROMIUM=${LANCET_CHROMIUM:-/usr/bin/chromium}
PW_DIR=${LANCET_PLAYWRIGHT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lancet-playwright}

fail() { echo "ui_browser: $*" >&2; exit 1; }
[ -x "$CHROMIUM" ] || fail "$CHROMIUM is missing (scripts/install-deps.sh installs Debian's chromium)"
[ -f "$PW_DIR/node_modules/playwright-core/package.json" ] ||
  fail "playwright-core is not in $PW_DIR (scripts/install-deps.sh installs it)"
command -v node >/dev/null || fail "node is missing"
command -v ffmpeg >/dev/null || fail "the ffmpeg CLI is missing (it makes the sample videos)"

rm -rf "$WORK"
mkdir -p "$WORK/videos" "$WORK/images" "$WORK/root" "$(dirname "$SHOT")"
# Two seconds at 600 kbit/s keeps each file past the 64 KiB inline threshold, so each goes
# through the plugin and gets its stream_info.
for spec in alpha:160x120:25 bravo:192x108:30 charlie:128x96:24; do
  IFS=: read -r name size fps <<<"$spec"
  ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=size=$size:rate=$fps:duration=2" \
    -c:v libx264 -preset veryfast -b:v 600k -pix_fmt yuv420p -g 12 "$WORK/videos/$name.mp4"
done
for spec in red:64x48 blue:96x64; do
  IFS=: read -r name size <<<"$spec"
  ffmpeg -nostdin -v error -y -f lavfi -i "color=c=$name:size=$size" -frames:v 1 "$WORK/images/$name.png"
done
"$LANCET" ingest "$WORK/videos" "$WORK/root/videos.lance" --glob '*.mp4' --column video --media "video=$PLUGIN" >/dev/null
"$LANCET" ingest "$WORK/images" "$WORK/root/images.lance" --glob '*.png' --column image >/dev/null

# Two servers on the same root: an open one, and one that wants a token (the page must
# ask for it before it lists anything).
SERVERS=()
stop_servers() {
  for pid in "${SERVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${SERVERS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_servers EXIT
# start_server NAME [ARGS...]: starts it and sets PORT to the port it printed.
start_server() {
  local name=$1
  shift
  "$LANCET" serve --ui --root "$WORK/root" --port 0 --quiet "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  SERVERS+=("$pid")
  PORT=""
  for _ in $(seq 1 200); do
    PORT=$(sed -n 's|^lancet serve: listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$WORK/$name.out")
    [ -n "$PORT" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.err" >&2; fail "the $name server exited"; }
    sleep 0.1
  done
  fail "the $name server printed no port within 20 s"
}
start_server open
OPEN_PORT=$PORT
TOKEN="ui-test-$RANDOM$RANDOM"
echo "$TOKEN" >"$WORK/token"
start_server guarded --token-file "$WORK/token"
GUARDED_PORT=$PORT

PLAYWRIGHT="$PW_DIR/node_modules/playwright-core" UI_TOKEN="$TOKEN" timeout 180 \
  node "$HERE/browser_check.cjs" "http://127.0.0.1:$OPEN_PORT/" "$CHROMIUM" "$SHOT" "http://127.0.0.1:$GUARDED_PORT/"
# SIGTERM stops a server cleanly (exit 0), whichever of its threads the signal reaches.
for pid in "${SERVERS[@]}"; do
  kill "$pid"
  status=0
  wait "$pid" || status=$?
  [ "$status" = 0 ] || fail "a server ended with status $status on SIGTERM, not 0"
done
SERVERS=()
echo "ui_browser: screenshot $SHOT"
