#!/usr/bin/env bash
# install_test.sh PYTHON BUILD_DIR
#
# `cmake --install` of the Python package, the CLI and the video plugin into a throwaway
# prefix, then the installed package alone (PYTHONPATH names only its directory, never
# the build tree) imports, writes and reads a dataset, and extract_frames finds the
# installed video plugin from the column's metadata. Needs _lancet and the CLI built; the
# video part needs the video plugin and the ffmpeg CLI (it is left out, said so, without).
set -euo pipefail

[ $# -eq 2 ] || { printf 'usage: install_test.sh PYTHON BUILD_DIR\n' >&2; exit 64; }
PYTHON="$1"
BUILD_DIR="$(cd "$2" && pwd -P)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-install.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"

components=(python cli)
VIDEO=0
if [ -f "$BUILD_DIR/plugins/liblancet_video_ffmpeg.so" ] && command -v ffmpeg >/dev/null 2>&1; then
  components+=(plugin_video_ffmpeg)
  VIDEO=1
else
  echo "install_test: no video plugin built or no ffmpeg CLI: the plugin part is left out"
fi
for c in "${components[@]}"; do
  cmake --install "$BUILD_DIR" --prefix "$PREFIX" --component "$c" >"$WORK/install-$c.log" ||
    { cat "$WORK/install-$c.log" >&2; exit 1; }
done

# The package's directory, wherever LANCET_PYTHON_INSTALL_DIR put it under the prefix.
init="$(find "$PREFIX" -path '*/lancet/__init__.py' -print -quit)"
[ -n "$init" ] || { echo "install_test: no lancet/__init__.py under $PREFIX" >&2; find "$PREFIX" >&2; exit 1; }
SITE="$(dirname "$(dirname "$init")")"
[ -x "$PREFIX/bin/lancet" ] || { echo "install_test: no $PREFIX/bin/lancet" >&2; exit 1; }

if [ "$VIDEO" = 1 ]; then
  ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=size=96x64:rate=10:duration=1 -c:v libx264 -preset veryfast \
    -pix_fmt yuv420p -g 5 "$WORK/clip.mp4"
fi

# -s: no user site-packages; run from $WORK so that no lancet/ in the working directory
# can stand in for the installed one.
cd "$WORK"
env -u LANCET_PLUGIN_DIR -u LANCET_BUILD_DIR -u LANCET_SOURCE_DIR PYTHONPATH="$SITE" PYTHONDONTWRITEBYTECODE=1 \
  "$PYTHON" -s - "$SITE" "$BUILD_DIR" "$PREFIX" "$VIDEO" <<'EOF'
import os
import sys

site, build, prefix, video = sys.argv[1], os.path.realpath(sys.argv[2]), os.path.realpath(sys.argv[3]), sys.argv[4]

import lancet
from lancet import _lancet
from lancet.dataset import _column_plugin

for f in (lancet.__file__, _lancet.__file__):
    assert os.path.realpath(f).startswith(os.path.realpath(site) + os.sep), f"{f} is not the installed copy"
for name, module in list(sys.modules.items()):
    f = getattr(module, "__file__", None) or ""
    assert not os.path.realpath(f).startswith(build + os.sep), f"{name} was loaded from the build tree: {f}"

ds = lancet.write_dataset({"id": list(range(10)), "name": [f"n{i}" for i in range(10)]}, "plain.lance",
                          max_rows_per_file=4)
ds.insert({"id": [10, 11], "name": ["n10", "n11"]})
ds = lancet.dataset("plain.lance")
assert ds.version == 2 and ds.count_rows() == 12, (ds.version, ds.count_rows())
assert ds.count_rows(filter="id >= 8") == 4
assert ds.take([11, 0]).to_pydict() == {"id": [11, 0], "name": ["n11", "n0"]}
assert ds.to_pandas()["name"].tolist() == [f"n{i}" for i in range(12)]
print("install_test: the installed package writes and reads a dataset")

if video == "1":
    installed = os.path.join(prefix, "lib", "lancet", "plugins", "liblancet_video_ffmpeg.so")
    assert os.path.isfile(installed), installed
    with open("clip.mp4", "rb") as f:
        clip = f.read()
    v = lancet.write_dataset({"video": [clip]}, "video.lance", media={"video": installed},
                             schema=lancet.schema([lancet.blob_field("video", inline_max=0)]))
    # No plugin= and no LANCET_PLUGIN_DIR: found from the column's metadata, relative to
    # the installed package.
    found = os.path.realpath(_column_plugin(v.schema, "video"))
    assert found == os.path.realpath(installed), f"found {found}, not the installed {installed}"
    (frames,) = v.extract_frames("video", [0], frames=[0, 7])
    assert len(frames) == 2 and frames[0].shape == (64, 96, 3), (len(frames), frames[0].shape)
    assert v.video_info("video", indices=[0])[0]["frame_count"] == 10
    print("install_test: extract_frames found and used", found)
EOF

# The installed CLI reads what the installed module wrote.
count="$("$PREFIX/bin/lancet" count "$WORK/plain.lance")"
[ "$count" = 12 ] || { echo "install_test: the installed lancet counts '$count' rows, not 12" >&2; exit 1; }
echo "install_test: the installed CLI counts $count rows"
