complete -c gin-server -l addr -d 'Address to listen on' -r
complete -c gin-server -l db -d 'SQLite database file: every game and result is kept there (created if missing), the actions of unfinished games in the journal directory `<db>-actions` beside it' -r -F
complete -c gin-server -l tls-cert -d 'TLS certificate (PEM). With --tls-key, serves TLS; without, plain TCP' -r -F
complete -c gin-server -l tls-key -d 'TLS private key (PEM)' -r -F
complete -c gin-server -l max-message-bytes -d 'Largest request accepted, in bytes' -r
complete -c gin-server -l rate-per-sec -d 'Requests per second per caller (seat token, or address without one); 0: unlimited' -r
complete -c gin-server -l registrations-per-hour -d 'Accounts one address may register per hour; 0: no limit' -r
complete -c gin-server -l session-days -d 'Days a sign-in (the web page\'s session cookie included) lasts; API tokens do not expire' -r
complete -c gin-server -l request-timeout-secs -d 'Seconds a call may take before it is DEADLINE_EXCEEDED (a stream once started is not timed; a quick match waits up to 60 s)' -r
complete -c gin-server -l max-calls-per-connection -d 'Calls one connection may have in flight at once' -r
complete -c gin-server -l max-open-games-per-caller -l max-open-games -d 'Unfinished games one caller (an account, from any address; else an address) may have created at once, the games of its tournaments included' -r
complete -c gin-server -l open-game-ttl-secs -d 'Seconds a game may wait for a player: then it is cancelled (no winner); 0: forever' -r
complete -c gin-server -l idle-game-ttl-secs -d 'Seconds the seat to act may do nothing: then it abandons the game and loses; 0: forever' -r
complete -c gin-server -l stream-buffer -d 'Events buffered per watch stream; a reader further behind is cut off and resumes' -r
complete -c gin-server -l heartbeat-secs -d 'Seconds between heartbeats on an idle stream' -r
complete -c gin-server -l keep-finished-secs -d 'Seconds a finished game stays in memory; after that it is read back from the database when asked for (memory stays bounded however many games were played)' -r
complete -c gin-server -l threads -d 'Threads serving connections (a connection stays on one); default: one per core' -r
complete -c gin-server -l metrics-addr -d 'Serve the Prometheus metrics at http://<this address>/metrics (plain HTTP); off when not given. An address that cannot be bound stops the start' -r
complete -c gin-server -l cluster-addr -d 'Run as one server of several sharing the PostgreSQL database of --db: the address (host:port) the other servers reach this one at. Each game is served by one server, which holds a lease on it; a server that stops renewing loses its games to the others' -r
complete -c gin-server -l lease-ms -d 'In a cluster: the lease\'s length, in milliseconds (renewed every third of it)' -r
complete -c gin-server -l route-tag -d 'Put this tag (letters, digits, `_`; at most 16) and a `-` before the id of every game and tournament this server creates, so that a proxy in front of several servers can send the calls naming one to the server that created it (local-cluster.sh\'s HAProxy does); any server still serves any call (forwarding it to the game\'s server)' -r
complete -c gin-server -l trusted-proxies -d 'In a cluster: the networks (CIDR, or single addresses) whose calls may name their caller in `x-gin-client`: the proxy in front and the other servers. A call from anywhere else counts as its TCP peer\'s, for quotas and rate limits' -r
complete -c gin-server -l ladder-house-after-secs -d 'Seconds a ladder player waits before a house bot takes it on' -r
complete -c gin-server -l ladder-turn-secs -d 'Seconds per turn in ladder games (the server plays for a seat whose time runs out)' -r
complete -c gin-server -l log-format -d 'Log lines as text for people, or one JSON object per line for log collectors (each with its RPC\'s span: method and game id). The level comes from RUST_LOG (default info)' -r -f -a "text\t''
json\t''"
complete -c gin-server -l completions -d 'Print the shell completion script for gin-server (bash, zsh, fish, elvish, powershell) and exit, e.g. `gin-server --completions bash > ~/.local/share/bash-completion/completions/gin-server`. No environment variable' -r -f -a "bash\t''
elvish\t''
fish\t''
powershell\t''
zsh\t''"
complete -c gin-server -l ladder-house-bots -d 'Enter the house bots in the ladder\'s two-player pools (`house-random`, `house-simple`, `house-strong`: bot accounts the server registers, plays and rates), as the opponent of a player who has waited --ladder-house-after-secs with nobody else in reach'
complete -c gin-server -s h -l help -d 'Print help'
complete -c gin-server -s V -l version -d 'Print version'
