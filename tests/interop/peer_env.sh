# Sourced by the interop scripts: finds the peer harness and installs the reference.
# Needs REPO (the repository root) and a die() function; sets PEER and LANCE_PEER_DIR,
# and prints the setup line unless PEER_SETUP_QUIET=1.
# The harness is the project's copy in tests/peer (scripts/sync-peer.sh keeps it
# current); LANCET_PEER_HARNESS points elsewhere for trying another version.
PEER="${LANCET_PEER_HARNESS:-$REPO/tests/peer}"
[ -f "$PEER/setup.sh" ] || die "peer harness not found in $PEER"
command -v node >/dev/null 2>&1 || die "node not found (the peer needs node >= 20)"

export LANCE_PEER_DIR="${LANCE_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lance-peer}"
setup_out="$("$PEER/setup.sh" "$LANCE_PEER_DIR")" || die "peer setup failed (see above)"
[ "${PEER_SETUP_QUIET:-0}" = 1 ] || printf '%s\n' "$setup_out"
