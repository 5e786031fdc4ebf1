#!/usr/bin/env bash
# run_s3_pytest.sh PYTHON BUILD_DIR [PYTEST_ARG...]
#
# test_s3.py against the S3 server the environment names (`make s3-test` starts radosgw
# and exports its settings). Without AWS_ENDPOINT_URL and LANCET_TEST_BUCKET it exits 77,
# which ctest reports as skipped, as the C++ S3 tests skip.
set -uo pipefail

[ $# -ge 2 ] || { printf 'usage: run_s3_pytest.sh PYTHON BUILD_DIR [PYTEST_ARG...]\n' >&2; exit 64; }
if [ -z "${AWS_ENDPOINT_URL:-}" ] || [ -z "${LANCET_TEST_BUCKET:-}" ]; then
  printf 'run_s3_pytest: no S3 server: set AWS_ENDPOINT_URL and LANCET_TEST_BUCKET (eval "$(scripts/s3-server.sh start)"); skipped\n'
  exit 77
fi
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
PYTHON="$1"
BUILD_DIR="$2"
shift 2
# The reference peer plays no part here.
LANCET_PYTHON_NO_PEER=1 exec "$HERE/run_pytest.sh" "$PYTHON" "$BUILD_DIR" -k test_s3 -rs "$@"
