#!/usr/bin/env bash
# A local cluster to try: a private PostgreSQL, several gin-servers sharing it, HAProxy in
# front. Every part is a proven one from Debian's packages (postgresql, haproxy); nothing is
# downloaded. Ctrl-c (or SIGTERM) stops it all and deletes its directory (unless --dir).
#
#   examples/cluster/local-cluster.sh [--servers N] [--port P] [--server-port P] [--metrics-port P]
#                                     [--pg-port P] [--dir D] [--lease-ms MS] [--respawn]
#
# Clients use the proxy's address (--port, default 127.0.0.1:50051) as they would one
# server's:   gin --server http://127.0.0.1:50051 ...
# Server I listens on --server-port + I - 1 and serves its metrics on --metrics-port + I - 1,
# PostgreSQL on --pg-port (each free port at random when not given). The servers' pids are
# in D/server-I.pid (kill -9 one to watch its games move), their logs in D/server-I.log,
# their Prometheus numbers at http://<D/server-I.metrics>/metrics; D/ready appears once
# everything answers. A server that loses its lease stops (its games are others' already):
# with --respawn it is started again at its address, as a supervisor would (in production:
# examples/cluster/gin-server@.service, Restart=always).
# The gin-server binary: GIN_SERVER_BIN, else `gin-server` on the PATH, else this checkout's,
# built with `cargo build --release -p gin-server` (it says so; minutes the first time).
# (GIN_SERVER is the clients' server URL; a GIN_SERVER that is a path, as this script once
# read it, is still taken as the binary.)
set -euo pipefail

servers=3
port=50051
dir=""
lease_ms=3000
respawn=0
server_port=""
metrics_port=""
pg_port=""
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --server-port) server_port="$2"; shift 2 ;;
    --metrics-port) metrics_port="$2"; shift 2 ;;
    --pg-port) pg_port="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --lease-ms) lease_ms="$2"; shift 2 ;;
    --respawn) respawn=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/../.." && pwd)"
keep=1
if [ -z "$dir" ]; then
  dir="$(mktemp -d /tmp/gin-cluster.XXXXXX)"
  keep=0
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

pg_bin="${GIN_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
if [ -z "$pg_bin" ] || [ ! -x "$pg_bin/initdb" ]; then
  echo "PostgreSQL is not installed (Debian: apt-get install postgresql)" >&2
  exit 1
fi
if ! command -v haproxy >/dev/null; then
  echo "HAProxy is not installed (Debian: apt-get install haproxy)" >&2
  exit 1
fi
server_bin="${GIN_SERVER_BIN:-}"
if [ -z "$server_bin" ] && [ -n "${GIN_SERVER:-}" ] && [[ "$GIN_SERVER" != *://* ]]; then
  server_bin="$GIN_SERVER"
fi
[ -n "$server_bin" ] || server_bin="$(command -v gin-server || true)"
if [ -z "$server_bin" ]; then
  echo "local-cluster: building gin-server (cargo build --release -p gin-server; set GIN_SERVER_BIN to use a built one)" >&2
  (cd "$root" && cargo build --release -p gin-server >&2)
  server_bin="$(cd "$root" && cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/gin-server"
fi

# A port free a moment ago, taken below the kernel's ephemeral range (32768-60999 by
# default), so that no outgoing connection (the servers' to PostgreSQL) takes it before its
# server binds it, as a port-0 probe's could.
free_port() {
  python3 - <<'PY'
import random, socket
for _ in range(10000):
    p = random.randrange(20000, 32000)
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break
PY
}

# PostgreSQL refuses to run as root: as the `postgres` user then.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pids=()
cleanup() {
  trap - EXIT INT TERM
  touch "$dir/stopping"
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for f in "$dir"/server-*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true; done
  wait 2>/dev/null || true
  as_pg "$pg_bin/pg_ctl" -D "$dir/pg/data" -m fast stop >/dev/null 2>&1 || true
  [ "$keep" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM

# 1. PostgreSQL: a private cluster, trust authentication on loopback only. As root it runs
# as `postgres`, which must reach D/pg: D (mktemp's is 0700) lets others through, not read.
mkdir -p "$dir/pg"
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir/pg"
  [ "$keep" = 1 ] || chmod 0711 "$dir"
  if ! runuser -u postgres -- test -w "$dir/pg"; then
    echo "local-cluster: the postgres user cannot reach $dir/pg (a parent directory is closed to it): use a --dir under /tmp" >&2
    exit 1
  fi
fi
[ -n "$pg_port" ] || pg_port="$(free_port)"
as_pg "$pg_bin/initdb" -D "$dir/pg/data" -U gin --auth=trust -E UTF8 >"$dir/pg/initdb.log"
as_pg "$pg_bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/log" -w \
  -o "-p $pg_port -k $dir/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
as_pg "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U gin gin
db="postgres://gin@127.0.0.1:$pg_port/gin"
echo "$db" >"$dir/db-url"
echo "PostgreSQL: $db"

# 2. The servers, each reachable by the others at its own address. Server I runs as pid
# D/server-I.pid; with --respawn it is started again whenever it stops (a new server to the
# cluster: it joins, and takes over what lapsed servers left). Server I puts its route tag
# sI before the ids of the games and tournaments it creates (sI-…), which the proxy routes by.
run_server() {
  local i="$1" p="$2" mp="$3"
  while :; do
    "$server_bin" --addr "127.0.0.1:$p" --db "$db" --cluster-addr "127.0.0.1:$p" \
      --lease-ms "$lease_ms" --rate-per-sec 0 --route-tag "s$i" \
      --metrics-addr "127.0.0.1:$mp" >>"$dir/server-$i.log" 2>&1 &
    echo $! >"$dir/server-$i.pid.new"
    mv "$dir/server-$i.pid.new" "$dir/server-$i.pid"
    wait $! || true
    if [ "$respawn" = 0 ] || [ -e "$dir/stopping" ]; then break; fi
    echo "local-cluster: server $i stopped; starting it again" >>"$dir/server-$i.log"
    sleep 0.2
  done
}
rm -f "$dir/stopping"
backends=""
routes=""
for i in $(seq 1 "$servers"); do
  if [ -n "$server_port" ]; then p=$((server_port + i - 1)); else p="$(free_port)"; fi
  if [ -n "$metrics_port" ]; then mp=$((metrics_port + i - 1)); else mp="$(free_port)"; fi
  : >"$dir/server-$i.log"
  run_server "$i" "$p" "$mp" &
  pids+=($!)
  for _ in $(seq 1 50); do [ -f "$dir/server-$i.pid" ] && break; sleep 0.02; done
  echo "127.0.0.1:$p" >"$dir/server-$i.addr"
  echo "127.0.0.1:$mp" >"$dir/server-$i.metrics"
  backends="$backends    server s$i 127.0.0.1:$p proto h2 check inter 500ms fall 2 rise 1
"
  routes="$routes    use-server s$i if names_one { req.body,ungrpc(1) -m beg s$i- }
"
  echo "server $i: 127.0.0.1:$p (pid $(cat "$dir/server-$i.pid"))"
done

# Each server is up once it says it listens (its store opened, its lease taken).
for i in $(seq 1 "$servers"); do
  for _ in $(seq 1 300); do
    grep -q "gin-server listening" "$dir/server-$i.log" 2>/dev/null && break
    if ! kill -0 "$(cat "$dir/server-$i.pid")" 2>/dev/null; then
      echo "server $i stopped at start:" >&2; cat "$dir/server-$i.log" >&2; exit 1
    fi
    sleep 0.1
  done
done

# 3. HAProxy: HTTP/2 in front. A call about one game or tournament goes to the server whose
# tag starts its id (field 1 of the request, read with `ungrpc`), the one that created it and
# most likely still serves it; any other call, and one whose server is down, goes round the
# servers that accept calls (a server that does not serve the game forwards the call to the
# one that does: routing here only saves that hop). (HAProxy runs `http-request` rules
# before `use-server`, so they are written in that order; its error replies have no body,
# so no content-type: gRPC clients read the status from grpc-status.)
cat >"$dir/haproxy.cfg" <<CFG
global
    maxconn 4000
defaults
    mode http
    timeout connect 1s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
frontend gin
    bind 127.0.0.1:$port proto h2
    default_backend servers
backend servers
    balance roundrobin
    # The request's message, for its id (a gRPC request is one small message here).
    option http-buffer-request
    acl names_one path_beg /gin.v1.GameService/ /gin.v1.TournamentService/ /gin.v1.LobbyService/JoinGame
    # The caller's address, for quotas, rate limits and quick match (one client is never
    # paired with itself): set here, replacing any a client sent.
    http-request set-header x-gin-client %[src]:%[src_port]
$routes    # A call the chosen server did not take (it died, and the health check has not seen
    # it yet) is tried on another; one none took is UNAVAILABLE as gRPC says it, which
    # clients retry (with retry-after-ms: nothing was done, so even CreateGame).
    retry-on conn-failure empty-response
    retries 3
    option redispatch 1
    http-error status 503 hdr grpc-status 14 hdr grpc-message "no server took the call" hdr retry-after-ms 250
    http-error status 502 hdr grpc-status 14 hdr grpc-message "the server failed"
    http-error status 504 hdr grpc-status 14 hdr grpc-message "the server did not answer"
$backends
CFG
haproxy -f "$dir/haproxy.cfg" -db >"$dir/haproxy.log" 2>&1 &
proxy=$!
pids+=($proxy)

# Ready once the proxy answers a gRPC health check (HTTP/2, prior knowledge).
for _ in $(seq 1 200); do
  if python3 - "$port" <<'PY' 2>/dev/null
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
data = s.recv(9)
sys.exit(0 if len(data) == 9 and data[3] == 4 else 1)
PY
  then break; fi
  sleep 0.1
done
echo "proxy: http://127.0.0.1:$port (directory $dir)"
touch "$dir/ready"
wait "$proxy"
