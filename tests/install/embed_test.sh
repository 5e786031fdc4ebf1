#!/usr/bin/env bash
# embed_test.sh BUILD_DIR SOURCE_DIR CXX VERSION
#
# `cmake --install` of the C++ package (component dev) into a throwaway prefix, then
# examples/embed built against that prefix alone, twice: through find_package(Lancet) and
# through `pkg-config lancet`. Each program writes, appends to and scans a dataset; its
# output must be the expected rows. A copy of the example is built, so that any path into
# the source or build tree in a compile or link line shows the package leaning on them.
set -euo pipefail

[ $# -eq 4 ] || { printf 'usage: embed_test.sh BUILD_DIR SOURCE_DIR CXX VERSION\n' >&2; exit 64; }
BUILD_DIR="$(cd "$1" && pwd -P)"
SOURCE_DIR="$(cd "$2" && pwd -P)"
CXX="$3"
VERSION="$4"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/lancet-embed.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"
fail() { printf 'embed_test: %s\n' "$*" >&2; exit 1; }

# Nothing from the caller's environment may point a consumer back at the build.
unset CMAKE_PREFIX_PATH PKG_CONFIG_PATH CPATH CPLUS_INCLUDE_PATH LIBRARY_PATH Lancet_DIR Lancet_ROOT

cmake --install "$BUILD_DIR" --prefix "$PREFIX" --component dev >"$WORK/install.log" ||
  { cat "$WORK/install.log" >&2; fail "cmake --install failed"; }
config="$(find "$PREFIX" -name LancetConfig.cmake -print -quit)"
pc="$(find "$PREFIX" -name lancet.pc -print -quit)"
[ -n "$config" ] || fail "no LancetConfig.cmake under $PREFIX"
[ -n "$pc" ] || fail "no lancet.pc under $PREFIX"
[ -f "$PREFIX/include/lancet/table/dataset.h" ] || fail "no public headers under $PREFIX/include"
if grep -rlIE "$SOURCE_DIR|$BUILD_DIR" "$PREFIX" >"$WORK/leaks"; then
  fail "installed files name the source or build tree: $(tr '\n' ' ' <"$WORK/leaks")"
fi

cp -r "$SOURCE_DIR/examples/embed" "$WORK/embed"
EXPECTED="version 2, 5 rows in 3 fragments
2 grace
3 edsger
4 barbara
5 donald"
check_run() {  # check_run NAME PROGRAM: runs it on a fresh dataset and compares its output
  local out
  out="$("$2" "$WORK/$1.lance")" || fail "$1: the program failed"
  [ "$out" = "$EXPECTED" ] || fail "$1: printed
$out
instead of
$EXPECTED"
  echo "embed_test: $1 wrote and read back the dataset"
}
no_tree_paths() {  # no_tree_paths NAME FILE: FILE (compile/link lines) names neither tree
  if grep -qE "$SOURCE_DIR|$BUILD_DIR" "$2"; then
    grep -E "$SOURCE_DIR|$BUILD_DIR" "$2" >&2
    fail "$1: compiled or linked against the source or build tree"
  fi
}

# find_package(Lancet) with the prefix as the only place to look; the user package
# registry is off in case some build ever registers itself there.
cmake -S "$WORK/embed" -B "$WORK/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log" >&2; fail "find_package(Lancet) configure failed"; }
grep -q -- "-- Lancet $VERSION from $PREFIX/" "$WORK/configure.log" ||
  { cat "$WORK/configure.log" >&2; fail "find_package did not find Lancet $VERSION in $PREFIX"; }
cmake --build "$WORK/cmake-build" --verbose >"$WORK/build.log" 2>&1 ||
  { cat "$WORK/build.log" >&2; fail "the find_package(Lancet) build failed"; }
no_tree_paths cmake "$WORK/build.log"
check_run cmake "$WORK/cmake-build/lancet_embed"

# pkg-config: what a Makefile or another build system uses.
PKG_CONFIG_PATH="$(dirname "$pc")"
export PKG_CONFIG_PATH
[ "$(pkg-config --modversion lancet)" = "$VERSION" ] || fail "lancet.pc says version $(pkg-config --modversion lancet)"
flags="$(pkg-config --cflags --libs lancet)" || fail "pkg-config --cflags --libs lancet failed"
echo "$CXX -std=c++20 -O1 -Wall -Wextra -Werror main.cc $flags" >"$WORK/pkg-config.cmd"
no_tree_paths pkg-config "$WORK/pkg-config.cmd"
# shellcheck disable=SC2086  # the flags are words
# -Wextra -Werror: the installed headers must not make warnings in a user's build.
"$CXX" -std=c++20 -O1 -Wall -Wextra -Werror "$WORK/embed/main.cc" -o "$WORK/pc-embed" $flags ||
  fail "the build with pkg-config --cflags --libs lancet failed: $flags"
check_run pkg-config "$WORK/pc-embed"
