# Sourced by the bench scripts: copy_dataset SRC DST makes DST a copy of dataset SRC
# whose data files are hard links (the benchmarks change only manifests and indexes).
copy_dataset() {
  mkdir -p "$2"
  cp -al "$1/data" "$2/data"
  for d in _versions _transactions _deletions; do [ -d "$1/$d" ] && cp -r "$1/$d" "$2/$d"; done
  return 0
}
