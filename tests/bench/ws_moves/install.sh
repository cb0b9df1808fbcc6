#!/bin/bash
# Installs the `ws` package (the WebSocket client the Harbormaster side of the moves benchmark uses) once into
# a cache folder, as tests/bench/boardgameio/run.sh does for boardgame.io. Prints the folder.
set -euo pipefail
CACHE=${HM_WS_LOAD_CACHE:-$HOME/.cache/hm-ws-load}
mkdir -p "$CACHE"
if [ ! -d "$CACHE/node_modules/ws" ]; then
  (cd "$CACHE" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund ws@8 >/dev/null)
fi
cp "$(dirname "$0")"/load.js "$(dirname "$0")"/watch.js "$CACHE/"
echo "$CACHE"
