#!/usr/bin/env bash
# CI: the marked code blocks of README.md and the book against a real server (the markers and
# what each one checks: .ci/book_examples.py; its tests: .ci/tests/). Builds gin,
# gin-bot and gin-server (debug, as .ci/examples.sh does), starts gin-server (free port,
# temporary database), puts the three first on PATH, sets GIN_SERVER, and runs every
# `<!-- runnable -->` block (bash -euo pipefail, from the repository's root, 120 s each),
# every `<!-- runnable: tty -->` block in tmux (120x40), and checks every `<!-- same-as -->`
# block against its file. Arguments, if any, are the Markdown files to run (default: README.md
# and the book). The server is stopped in every case.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
timed() { local t=$SECONDS; "$@"; echo "   ($((SECONDS - t)) s)"; }

step "book examples: build gin, gin-bot and gin-server (debug)"
timed cargo build --locked -p gin-client-cli -p gin-bot -p gin-server --bins
bin=$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd) # where cargo put them

step "book examples: start gin-server"
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NO_COLOR=1 "$bin/gin-server" --addr "127.0.0.1:$port" --db "$tmp/gin.db" >"$tmp/server.log" 2>&1 &
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

step "book examples: the marked blocks of README.md and the book"
export PATH="$bin:$PATH"
export GIN_SERVER="http://127.0.0.1:$port"
# The account tokens `gin account create` and `gin login` keep: this run's, not the machine's.
export GIN_CONFIG_DIR="$tmp/config"
before=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
status=0
timed python3 .ci/book_examples.py --server-log "$tmp/server.log" "$@" || status=$?
after=$(git status --porcelain --untracked-files=all 2>/dev/null || true)
if [ "$before" != "$after" ]; then
  echo "note: the blocks left the checkout changed (a reader's copy would be too):"
  diff <(echo "$before") <(echo "$after") | sed -n 's/^> /   /p'
fi
kill -0 "$server" 2>/dev/null || { echo "gin-server stopped during the examples:"; tail -30 "$tmp/server.log"; status=1; }
exit "$status"
