#!/usr/bin/env bash
# CI: the clients in other languages against a real server. Installs what the examples need
# from the package registries (pip into examples/python/.venv, npm ci for the TypeScript
# example), builds and starts gin-server (free port, temporary database), and has each
# example play GAMES complete games against a house bot, each checking the result it reads
# back (GetRecord): the Python bot, the TypeScript bot, and `gin-bot bridge` with the
# example script of examples/bridge/. Then the Python and TypeScript bots each play a
# three-player rummy game and a four-player team game against house bots, checking the
# result and the table record, and each plays signed in: it registers a fresh bot account
# (--register), plays a game as it, then another with the token it printed, checking that
# its seat names the account (a bot) and that the account's ListPlayerGames lists the game;
# then both play two games of the rated ladder at once (--ladder; the server's house bots
# in the ladder). Any failure fails the script; the server is stopped in every case.
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
# House bots in the ladder (the ladder step below): a lone player meets one after 1 s.
"$bin/gin-server" --addr "127.0.0.1:$port" --db "$tmp/gin.db" --ladder-house-bots --ladder-house-after-secs 1 \
  >"$tmp/server.log" 2>&1 &
server=$!
cluster=""
stop_server() {
  kill "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  [ -z "$cluster" ] || { kill "$cluster" 2>/dev/null && wait "$cluster" 2>/dev/null || true; }
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

step "examples: the Python and TypeScript bots signed in: each registers a fresh bot account (--register) and plays a game as it, then another with its token (GIN_ACCOUNT_TOKEN, --account-token); after each game their seat in GetGame names the account, a bot, and the account's ListPlayerGames lists the game"
# One signed-in run: the bot's output in $tmp/$1.out and .err; the summary must say it
# played as bot account $2 (the bot itself checks each seat and ListPlayerGames).
signed_run() {
  local log=$1 name=$2; shift 2
  if ! timeout 120 "$@" >"$tmp/$log.out" 2>"$tmp/$log.err"; then
    cat "$tmp/$log.out" "$tmp/$log.err"; return 1
  fi
  cat "$tmp/$log.out"
  grep -q "signed in as bot account $name: every seat its, every game in its ListPlayerGames" "$tmp/$log.out" ||
    { echo "$log: not signed in as $name"; return 1; }
}
# The token --register printed (once, to stderr).
token_of() { sed -n 's/^registered bot account .*; its token, shown this once: \(gin_at_[^ ]*\)$/\1/p' "$tmp/$1.err"; }
signed_in() {
  local run="$$-$RANDOM" tok
  local py=(examples/python/.venv/bin/python examples/python/bot.py --server "127.0.0.1:$port" --vs-bot simple)
  local ts=(node examples/typescript/dist/bot.js --server "127.0.0.1:$port" --vs-bot simple)
  # Python: registered, seated by QuickMatch; then by CreateGame with GIN_ACCOUNT_TOKEN.
  signed_run py-register "py-ci-$run" "${py[@]}" --register "py-ci-$run" --quick-wait-ms 200 || return 1
  tok=$(token_of py-register)
  [ -n "$tok" ] || { echo "python: no token printed by --register"; cat "$tmp/py-register.err"; return 1; }
  signed_run py-token "py-ci-$run" env GIN_ACCOUNT_TOKEN="$tok" "${py[@]}" || return 1
  # TypeScript: registered; then with --account-token.
  signed_run ts-register "ts-ci-$run" "${ts[@]}" --register "ts-ci-$run" || return 1
  tok=$(token_of ts-register)
  [ -n "$tok" ] || { echo "typescript: no token printed by --register"; cat "$tmp/ts-register.err"; return 1; }
  signed_run ts-token "ts-ci-$run" "${ts[@]}" --account-token "$tok" || return 1
}
timed signed_in || fail

step "examples: the Python and TypeScript bots on the rated ladder at once (--ladder, fresh bot accounts): two games each, against each other or the house bots, each result and seat checked"
ladder_run() {
  local run="$$-$RANDOM"
  timeout 120 examples/python/.venv/bin/python examples/python/bot.py --server "127.0.0.1:$port" \
    --register "py-ladder-$run" --ladder --games 2 >"$tmp/py-ladder.out" 2>"$tmp/py-ladder.err" &
  local py=$!
  timeout 120 node examples/typescript/dist/bot.js --server "127.0.0.1:$port" \
    --register "ts-ladder-$run" --ladder --games 2 >"$tmp/ts-ladder.out" 2>"$tmp/ts-ladder.err" &
  local ts=$!
  local ok=0
  wait "$py" || { cat "$tmp/py-ladder.out" "$tmp/py-ladder.err"; ok=1; }
  wait "$ts" || { cat "$tmp/ts-ladder.out" "$tmp/ts-ladder.err"; ok=1; }
  cat "$tmp/py-ladder.out" "$tmp/ts-ladder.out"
  for f in py-ladder ts-ladder; do
    [ "$(grep -c ' vs ladder: ' "$tmp/$f.out")" = 2 ] || { echo "$f: not two ladder games"; ok=1; }
    grep -q '^ladder gin/standard: rating .* after 1 rated games' "$tmp/$f.out" ||
      { echo "$f: its second join did not show its first rated game"; ok=1; }
  done
  return "$ok"
}
timed ladder_run || fail

step "examples: the Python and TypeScript bots through the local cluster (examples/cluster/local-cluster.sh --respawn, its own directory), the servers of their games frozen (SIGSTOP) for twice the lease: they retry and resume, every game ends"
cport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
GIN_SERVER_BIN="$bin/gin-server" examples/cluster/local-cluster.sh --port "$cport" --lease-ms 1500 --respawn \
  >"$tmp/cluster.log" 2>&1 &
cluster=$!
cdir=""
for _ in $(seq 300); do
  cdir=$(sed -n 's/^proxy: .*(directory \(.*\))$/\1/p' "$tmp/cluster.log")
  [ -n "$cdir" ] && [ -e "$cdir/ready" ] && break
  kill -0 "$cluster" 2>/dev/null || { cat "$tmp/cluster.log"; echo "local-cluster.sh stopped" >&2; exit 1; }
  sleep 0.2
done
[ -n "$cdir" ] || { cat "$tmp/cluster.log"; echo "the local cluster did not come up" >&2; exit 1; }
frozen_cluster() {
  timeout 300 examples/python/.venv/bin/python examples/python/bot.py \
    --server "127.0.0.1:$cport" --vs-bot simple --games 6 --name py-cluster >"$tmp/py.log" 2>&1 &
  local py=$!
  timeout 300 node examples/typescript/dist/bot.js \
    --server "127.0.0.1:$cport" --vs-bot simple --games 6 --name ts-cluster >"$tmp/ts.log" 2>&1 &
  local ts=$!
  # Once both play, the servers that hold their games (PostgreSQL says which) are frozen
  # for twice the lease, so that both bots meet a frozen server, and continued.
  local held="" frozen=() i
  for _ in $(seq 100); do
    held=$(psql -qAt "$(cat "$cdir/db-url")" -c "SELECT p.name, s.addr FROM games AS g \
      JOIN seats AS p ON p.game_id = g.id JOIN servers AS s ON s.id = g.owner \
      WHERE g.finished_ms IS NULL AND p.name IN ('py-cluster', 'ts-cluster')")
    grep -q '^py-cluster|' <<<"$held" && grep -q '^ts-cluster|' <<<"$held" && break
    sleep 0.1
  done
  for i in 1 2 3; do
    if grep -q "|$(cat "$cdir/server-$i.addr")\$" <<<"$held"; then frozen+=("$i"); fi
  done
  [ "${#frozen[@]}" -ge 1 ] || { echo "no game of the bots in play"; return 1; }
  echo "   freezing server(s) ${frozen[*]} for 3 s (their lease: 1.5 s)"
  for i in "${frozen[@]}"; do kill -STOP "$(cat "$cdir/server-$i.pid")"; done
  sleep 3
  for i in "${frozen[@]}"; do kill -CONT "$(cat "$cdir/server-$i.pid")"; done
  local ok=0
  wait "$py" || { echo "--- Python bot"; cat "$tmp/py.log"; ok=1; }
  wait "$ts" || { echo "--- TypeScript bot"; cat "$tmp/ts.log"; ok=1; }
  tail -n 1 "$tmp/py.log" "$tmp/ts.log"
  for i in "${frozen[@]}"; do
    if ! grep -q "lease is lost" "$cdir/server-$i.log"; then
      echo "server $i did not lose its lease:"; tail -20 "$cdir/server-$i.log"; ok=1
    fi
  done
  return "$ok"
}
timed frozen_cluster || { cat "$tmp/cluster.log"; exit 1; }

echo
echo "examples: every example played $GAMES complete games; the Python and TypeScript bots also a"
echo "three-player rummy game and a team game, and two games each as a bot account (seat and"
echo "ListPlayerGames checked), and two rated ladder games each; results checked against GetRecord"
