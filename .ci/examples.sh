#!/usr/bin/env bash
# CI: the clients in other languages against a real server. Installs what the examples need
# from the package registries (pip into examples/python/.venv, npm ci for the TypeScript
# example), builds and starts gin-server (free port, temporary database), and has each
# example play GAMES complete games against a house bot, each checking the result it reads
# back (GetRecord): the Python bot, the TypeScript bot, and `gin-bot bridge` with the
# example script of examples/bridge/. Then the Python and TypeScript bots each play a
# three-player rummy game and a four-player team game against house bots, checking the
# result and the table record. Any failure fails the script; the server is stopped in every
# case.
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES=${GAMES:-3}
# Short table games: rummy for three over three hands; team play to 50.
RUMMY3='{"kind":"rummy","players":3,"end":{"hands":3}}'
TEAMS='{"kind":"teams","target":50}'

step() { printf '\n== %s\n' "$*"; }
timed() { local t=$SECONDS; "$@"; echo "   ($((SECONDS - t)) s)"; }

step "examples: build gin-server and gin-bot (debug)"
timed cargo build --locked -p gin-server -p gin-bot --bins
bin=${CARGO_TARGET_DIR:-target}/debug # where cargo put them

step "examples: Python dependencies (pip, examples/python/requirements.txt)"
py_setup() {
  [ -x examples/python/.venv/bin/python ] || python3 -m venv examples/python/.venv
  examples/python/.venv/bin/pip install --quiet --disable-pip-version-check -r examples/python/requirements.txt
}
timed py_setup

step "examples: TypeScript dependencies (npm ci) and build (types from proto/, tsc)"
ts_setup() {
  (cd examples/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build)
}
timed ts_setup

step "examples: start gin-server"
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/gin-server" --addr "127.0.0.1:$port" --db "$tmp/gin.db" >"$tmp/server.log" 2>&1 &
server=$!
stop_server() {
  kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  rm -rf "$tmp"
}
trap stop_server EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log"; echo "gin-server exited" >&2; exit 1; }
  sleep 0.1
done
echo "gin-server on 127.0.0.1:$port (pid $server)"

fail() { echo "--- server log (last lines)"; tail -20 "$tmp/server.log"; exit 1; }

step "examples: Python bot, $GAMES quick matches played against the house bot (first action of each stale: ABORTED resync)"
timed timeout 300 examples/python/.venv/bin/python examples/python/bot.py \
  --server "127.0.0.1:$port" --vs-bot simple --games "$GAMES" --quick-wait-ms 200 --stale-first-action || fail

step "examples: TypeScript bot, $GAMES games against the house bot (first action of each stale: ABORTED resync)"
timed timeout 300 node examples/typescript/dist/bot.js \
  --server "127.0.0.1:$port" --vs-bot simple --games "$GAMES" --stale-first-action || fail

step "examples: gin-bot bridge with examples/bridge/bot.py, $GAMES games against the house bot"
timed timeout 300 "$bin/gin-bot" bridge --cmd "python3 examples/bridge/bot.py" \
  --server "http://127.0.0.1:$port" --vs-bot simple --games "$GAMES" || fail

step "examples: Python bot at the tables: three-player rummy (quick match, house bots) and team play"
timed timeout 300 examples/python/.venv/bin/python examples/python/bot.py \
  --server "127.0.0.1:$port" --vs-bot simple --format "$RUMMY3" --quick-wait-ms 200 --stale-first-action || fail
timed timeout 300 examples/python/.venv/bin/python examples/python/bot.py \
  --server "127.0.0.1:$port" --vs-bot simple --format "$TEAMS" --stale-first-action || fail

step "examples: TypeScript bot at the tables: three-player rummy and team play against house bots"
timed timeout 300 node examples/typescript/dist/bot.js \
  --server "127.0.0.1:$port" --vs-bot simple --format "$RUMMY3" --stale-first-action || fail
timed timeout 300 node examples/typescript/dist/bot.js \
  --server "127.0.0.1:$port" --vs-bot simple --format "$TEAMS" --stale-first-action || fail

echo
echo "examples: every example played $GAMES complete games; the Python and TypeScript bots also a"
echo "three-player rummy game and a team game; results checked against GetRecord"
