#!/usr/bin/env bash
# update_interop.sh BUILD_DIR
#
# Update interop against the reference peer: update_interop.mjs updates tables of
# either side with `lancet update` and the reference's table.update() and checks
# values, row ids and row versions from both, and blob bytes moved in the corpus's
# blobs_custom table (when the corpus is built: LANCET_CORPUS_DIR, else BUILD_DIR/corpus).
# Run through node_interop.sh (skips without node; LANCET_INTEROP_KEEP=1 keeps outputs).
exec "$(dirname "${BASH_SOURCE[0]}")/node_interop.sh" update_interop "${1:-}" "${LANCET_CORPUS_DIR:-${1:-}/corpus}/data"
