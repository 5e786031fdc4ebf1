#!/usr/bin/env bash
# run_pytest.sh PYTHON BUILD_DIR [PYTEST_ARG...]
#
# Runs the Python module's pytest suite against BUILD_DIR/python. When node is there the
# reference peer is installed first (tests/interop/peer_env.sh), so the interop test
# runs; without node, or if the install fails, that test skips and the rest still run.
set -uo pipefail

[ $# -ge 2 ] || { printf 'usage: run_pytest.sh PYTHON BUILD_DIR [PYTEST_ARG...]\n' >&2; exit 64; }
PYTHON="$1"
BUILD_DIR="$(cd "$2" && pwd -P)" || exit 2
shift 2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"

if command -v node >/dev/null 2>&1 && [ -z "${LANCET_PYTHON_NO_PEER:-}" ]; then
  # A failed install leaves the peer absent; test_peer.py then skips with the reason.
  die() { printf 'run_pytest: %s (the peer test will skip)\n' "$*" >&2; }
  PEER_SETUP_QUIET=1 . "$REPO/tests/interop/peer_env.sh" || true
  export LANCET_PEER_HARNESS="${PEER:-$REPO/tests/peer}"
fi

export PYTHONPATH="$BUILD_DIR/python${PYTHONPATH:+:$PYTHONPATH}"
export LANCET_BUILD_DIR="$BUILD_DIR"
export LANCET_SOURCE_DIR="$REPO"
# Nothing written into the source tree (python/tests/__pycache__).
export PYTHONDONTWRITEBYTECODE=1
cd "$REPO" && exec "$PYTHON" -m pytest -q -p no:cacheprovider "$HERE" "$@"
