# Sourced by the interop scripts: finds the peer harness and installs the reference.
# Needs REPO (the repository root) and a die() function; sets SHARED, PEER and
# LANCE_PEER_DIR, and prints the setup line unless PEER_SETUP_QUIET=1.
SHARED="${LANCET_SHARED_DIR:-$REPO/../shared}"
if [ -f "$SHARED/peer/setup.sh" ]; then
  PEER="$SHARED/peer"
elif [ -f "$SHARED/setup.sh" ]; then
  PEER="$SHARED"
else
  die "peer harness not found under $SHARED (set LANCET_SHARED_DIR)"
fi
command -v node >/dev/null 2>&1 || die "node not found (the peer needs node >= 20)"

export LANCE_PEER_DIR="${LANCE_PEER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lance-peer}"
setup_out="$("$PEER/setup.sh" "$LANCE_PEER_DIR")" || die "peer setup failed (see above)"
[ "${PEER_SETUP_QUIET:-0}" = 1 ] || printf '%s\n' "$setup_out"
