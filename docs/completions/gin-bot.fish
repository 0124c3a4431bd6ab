# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gin_bot_global_optspecs
    string join \n h/help V/version
end

function __fish_gin_bot_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gin_bot_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gin_bot_using_subcommand
    set -l cmd (__fish_gin_bot_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gin-bot -n "__fish_gin_bot_needs_command" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -s V -l version -d 'Print version'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "selfplay" -d 'Plays two strategies against each other in-process, on all cores'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "play" -d 'Plays games on a server: quick matches, games against a house bot (--vs-bot), or one given game (--join, --token); many at once; prints each result and a summary'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "bridge" -d 'Plays games on a server with a program in any language that speaks a line protocol on stdin/stdout (see examples/bridge/README.md): no gRPC needed'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "ladder" -d 'Plays the server\'s rated ladder as an account until stopped: joins a pool, plays each game it is seated in, joins again; prints its rating as it goes'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "tournament" -d 'Tournaments run by a server: create, join (play as an entrant), watch, results'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "account" -d 'Accounts for bots: create one (its token printed once), to play as it with --account-token'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "completions" -d 'Print the shell completion script for gin-bot (bash, zsh, fish, elvish, powershell)'
complete -c gin-bot -n "__fish_gin_bot_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l a -d 'Strategy A: random, simple, strong, strong-v1, strong-v2, gin-hunter, early-knocker or defensive' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l b -d 'Strategy B' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l games -d 'Games to play (with --duplicate: rounded up to even, half as many deal pairs)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l rules -d 'A preset name (standard, oklahoma, …, three-player, teams, gin-7, rummy) or a TOML/JSON rules or format file' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l players -d 'The table size, for formats played at several (gin-7: 3 to 6, rummy: 2 to 6)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l seed -d 'Master seed for deals and strategies\' choices' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l threads -d 'Worker threads (default: one per core)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l duplicate -d 'Play every deal twice with seats swapped'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l json -d 'Print the report as JSON on stdout'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -l no-timing -d 'Do not measure each decision\'s time (slightly faster)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand selfplay" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l strategy -d 'The strategy playing our seats: random, simple, strong, strong-v1, strong-v2, gin-hunter, early-knocker or defensive (every one at three players and in teams; random, simple or strong at gin-7 and rummy)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l games -d 'Games to play (ignored with --join)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l parallel -d 'Games in play at once' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l rules -d 'A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7, rummy) or a TOML/JSON rules or format file, for the games this command starts' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l players -d 'The table size (rummy 2–6, gin-7 3–6); default: the format\'s own' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l name -d 'Our display name (default: gin-bot-<strategy>)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l join -d 'Join the game with this id (its free seat) and play it, instead of starting games; with --token, play the seat that token holds' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l token -d 'With --join: the seat token of a seat already taken (printed when it was joined). An account token (gin_at_…) here is taken, by its prefix, as --account-token: the account joins (or plays the seat it holds already)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l vs-bot -d 'Create each game against the server\'s house bot playing this strategy (random, simple, strong), instead of a quick match against another player' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l strategy-seed -d 'Seed of our strategy\'s choices (game i uses N + i)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l seat -d 'With --vs-bot: our seat (0 or 1 at two-player gin; any of a table\'s). Without it, the server\'s choice (seat 0)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l deal-seed -d 'With --vs-bot: the deal seed of every game (fixed deals: `--seat 0` then `--seat 1` with the same seed plays a mirrored pair). Game i uses SEED+i. (`--seed` here is the older spelling of --strategy-seed.)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l first-dealer -d 'With --vs-bot, two-player gin: the seat that deals the first hand (0 or 1; default: drawn from the seed)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -l accept-fixed-deals -d 'With --join: join even though the game has fixed deals (its creator chose the seed and may know every hand)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand play" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l cmd -d 'The bot program, run with `sh -c` (e.g. "python3 examples/bridge/bot.py")' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l vs-bot -d 'Create each game against the server\'s house bot playing this strategy (random, simple, strong). Without --vs-bot or --join: quick matches against other players' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l join -d 'Join this game (its first free seat) and play it; --games is then 1' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l games -d 'Games to play, one after the other, with the same program' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l rules -d 'A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7, rummy) or a TOML/JSON rules or format file, for the games this command starts' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l players -d 'The table size (rummy 2–6, gin-7 3–6); default: the format\'s own' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l name -d 'Our display name' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l timeout-ms -d 'How long the program may take to answer one turn, in milliseconds' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l seat -d 'With --vs-bot: the program\'s seat (0 or 1 at two-player gin; any of a table\'s). Without it, the server\'s choice (seat 0)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l seed -d 'With --vs-bot: the deal seed of every game (fixed deals: the same seed and rules deal the same hands, so `--seat 0` then `--seat 1` plays a mirrored pair). Game i of --games N uses SEED+i' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l first-dealer -d 'With --vs-bot, two-player gin: the seat that deals the first hand (0 or 1; default: drawn from the seed)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l on-error -d 'What a bad or late answer, or a line written when no answer was asked, does: stop (resign the game and stop), resign-game (resign it and play the next game), skip (tell the program, play a safe move for that turn, go on). Under the last two a stray line is reported and ignored' -r -f -a "stop\t''
resign-game\t''
skip\t''"
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l ladder -d 'Play the server\'s rated ladder as the account of --account-token: join the pool of --rules (and --players), play the game it is seated in, join again, for --games games (0: until ctrl-c, which finishes the game in play)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l accept-challenges -d 'Take the challenges sent to the account of --account-token (two-player gin under a preset, rated or casual) and play each with the program, for --games games (0: until ctrl-c)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -l accept-fixed-deals -d 'With --join: join even though the game has fixed deals (its creator chose the seed)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand bridge" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l token -d 'The account\'s token (gin_at_…; `gin-bot account create` prints one): the same as --account-token' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l strategy -d 'The strategy: random, simple, strong, … (at gin-7 and rummy: random, simple or strong)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l rules -d 'The ladder: a preset of two-player gin (standard, oklahoma, …), or three-player, teams, gin-7, rummy (with --players)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l players -d 'The table size, for gin-7 (3 to 6) and rummy (2 to 6)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l games -d 'Stop after this many ladder games (default: until stopped with ctrl-c, which finishes the game in play first; a second ctrl-c stops at once)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l strategy-seed -d 'Seed of the strategy\'s choices' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -l accept-challenges -d 'Also take the challenges sent to the account (two-player gin under a preset, rated or casual) and play them alongside the ladder'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand ladder" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -f -a "create" -d 'Creates a tournament and prints its id'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -f -a "join" -d 'Enters a tournament with a built-in strategy, or a program through the bridge (--cmd), and plays every assigned game'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -f -a "watch" -d 'Shows progress (games done/total, ETA) until the end, then the standings'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -f -a "results" -d 'Prints the standings and games: a table, JSON or CSV'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and not __fish_seen_subcommand_from create join watch results help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l pairing -d 'How entrants are paired (gauntlet: the first to join plays every other)' -r -f -a "round-robin\t''
gauntlet\t''
swiss\t''"
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l entrants -d 'Entrants needed to start' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l games-per-pairing -d 'Games per pairing (per round for Swiss); rounded up to even with --duplicate' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l rules -d 'A preset name (standard, oklahoma, …, or a table format: three-player, teams, gin-7, rummy) or a TOML/JSON rules or format file. Tables play round robin only: every group of --players entrants meets at a table, in every seating' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l players -d 'The table size (rummy 2–6, gin-7 3–6); default: the format\'s own' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l turn-secs -d 'A turn clock of this many seconds (decimals allowed: 0.5), as `gin play --turn-secs`; without it, no clock' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l clock-ms -d 'The turn clock in milliseconds (the older flag; 0: none)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l clock-policy -d 'What happens when the clock runs out' -r -f -a "auto-play\t''
forfeit\t''"
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l parallel -d 'Games in play at once' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l rounds -d 'Swiss rounds (0: ceil(log2(entrants)))' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l sprt -d 'Stop early by SPRT on entrant 0\'s Elo advantage: ELO0,ELO1[,ALPHA,BETA] (2 entrants)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l seed -d 'Seed for the deals (0: random, revealed at the end). A seed chosen here fixes every deal: entrants must join with --accept-fixed-deals' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l name -d 'A name for people' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -l duplicate -d 'Play each deal twice, seats swapped'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l id -d 'The same, as a flag (the older spelling)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l strategy -d 'The strategy to play: random, simple, strong, strong-v1, strong-v2, gin-hunter, early-knocker or defensive (every one at three players and in teams; random, simple or strong at gin-7 and rummy)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l cmd -d 'Play with this program instead, through the bridge\'s line protocol (as `gin-bot bridge --cmd`), run once with `sh -c` for every game, one game at a time' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l timeout-ms -d 'With --cmd: how long the program may take to answer one turn, in milliseconds' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l on-error -d 'With --cmd: what a bad or late answer, or a line written when no answer was asked, does: stop (resign the game; every later game is resigned at once, and the command fails at the end), resign-game (resign it and play the next game), skip (tell the program, play a safe move for that turn, go on), as `gin-bot bridge --on-error`' -r -f -a "stop\t''
resign-game\t''
skip\t''"
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l name -d 'The entrant\'s display name (default: the strategy\'s name, or `bridge` with --cmd)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l token -d 'Re-enter as this entrant (printed when it first joined). An account token (gin_at_…) here is taken, by its prefix, as --account-token: the account enters' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l strategy-seed -d 'Seed of our strategy\'s choices' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -l accept-fixed-deals -d 'Enter even though the tournament has fixed deals (its creator chose the seed and may know every hand); the server refuses a new entrant of such a tournament without it'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from join" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from watch" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from watch" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from watch" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from watch" -l id -d 'The same, as a flag (the older spelling)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from watch" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -l id -d 'The same, as a flag (the older spelling)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -l format -d 'Output format' -r -f -a "table\t''
json\t''
csv\t''"
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from results" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from help" -f -a "create" -d 'Creates a tournament and prints its id'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from help" -f -a "join" -d 'Enters a tournament with a built-in strategy, or a program through the bridge (--cmd), and plays every assigned game'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from help" -f -a "watch" -d 'Shows progress (games done/total, ETA) until the end, then the standings'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from help" -f -a "results" -d 'Prints the standings and games: a table, JSON or CSV'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand tournament; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and not __fish_seen_subcommand_from create help" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and not __fish_seen_subcommand_from create help" -f -a "create" -d 'Create a bot account (shown as a bot wherever it plays) and print its token, once'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and not __fish_seen_subcommand_from create help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -l server -d 'The server: http://host:port, or https://host:port (TLS, checked against the system\'s roots or --ca-cert)' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -l account-token -d 'Play as this account (its token, gin_at_…: `gin-bot account create` prints one): the games and tournaments entered are the account\'s, shown as a bot\'s. Without it, a guest' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -l token-file -d 'Write the token to this new file (mode 0600 from its creation) instead of stdout' -r -F
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -l label -d 'The token\'s label' -r
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create a bot account (shown as a bot wherever it plays) and print its token, once'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand completions" -s h -l help -d 'Print help'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "selfplay" -d 'Plays two strategies against each other in-process, on all cores'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "play" -d 'Plays games on a server: quick matches, games against a house bot (--vs-bot), or one given game (--join, --token); many at once; prints each result and a summary'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "bridge" -d 'Plays games on a server with a program in any language that speaks a line protocol on stdin/stdout (see examples/bridge/README.md): no gRPC needed'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "ladder" -d 'Plays the server\'s rated ladder as an account until stopped: joins a pool, plays each game it is seated in, joins again; prints its rating as it goes'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "tournament" -d 'Tournaments run by a server: create, join (play as an entrant), watch, results'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "account" -d 'Accounts for bots: create one (its token printed once), to play as it with --account-token'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "completions" -d 'Print the shell completion script for gin-bot (bash, zsh, fish, elvish, powershell)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and not __fish_seen_subcommand_from selfplay play bridge ladder tournament account completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and __fish_seen_subcommand_from tournament" -f -a "create" -d 'Creates a tournament and prints its id'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and __fish_seen_subcommand_from tournament" -f -a "join" -d 'Enters a tournament with a built-in strategy, or a program through the bridge (--cmd), and plays every assigned game'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and __fish_seen_subcommand_from tournament" -f -a "watch" -d 'Shows progress (games done/total, ETA) until the end, then the standings'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and __fish_seen_subcommand_from tournament" -f -a "results" -d 'Prints the standings and games: a table, JSON or CSV'
complete -c gin-bot -n "__fish_gin_bot_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "create" -d 'Create a bot account (shown as a bot wherever it plays) and print its token, once'
