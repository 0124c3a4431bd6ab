# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gin_global_optspecs
    string join \n h/help V/version
end

function __fish_gin_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gin_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gin_using_subcommand
    set -l cmd (__fish_gin_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gin -n "__fish_gin_needs_command" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_needs_command" -s V -l version -d 'Print version'
complete -c gin -n "__fish_gin_needs_command" -f -a "analyze" -d 'Minimum deadwood and best melds of a hand; for 11 cards, the best discard first'
complete -c gin -n "__fish_gin_needs_command" -f -a "replay" -d 'Replay a game record of any format and print every hand, the final totals and the winner'
complete -c gin -n "__fish_gin_needs_command" -f -a "play" -d 'Play a game on a server: quick match (default), a house bot, or a game to share'
complete -c gin -n "__fish_gin_needs_command" -f -a "watch" -d 'Watch a game as a spectator'
complete -c gin -n "__fish_gin_needs_command" -f -a "list" -d 'List the open games (with a free seat) on a server'
complete -c gin -n "__fish_gin_needs_command" -f -a "verify" -d 'Check a finished game\'s deals against their commitments'
complete -c gin -n "__fish_gin_needs_command" -f -a "account" -d 'Accounts: create one; its tokens, password, export; delete it'
complete -c gin -n "__fish_gin_needs_command" -f -a "login" -d 'Sign in to an account on a server (the token is kept for the next commands)'
complete -c gin -n "__fish_gin_needs_command" -f -a "logout" -d 'Sign out: the kept token is revoked on the server and forgotten here'
complete -c gin -n "__fish_gin_needs_command" -f -a "whoami" -d 'Who is signed in on the server (the kept token\'s account)'
complete -c gin -n "__fish_gin_needs_command" -f -a "games" -d 'An account\'s games (yours when signed in, by default), newest first; each game\'s id for gin verify and the record'
complete -c gin -n "__fish_gin_needs_command" -f -a "challenge" -d 'Challenge an account to a game (signed in): it sees the challenge (gin challenges) and accepts or declines; with --wait, play it here once accepted'
complete -c gin -n "__fish_gin_needs_command" -f -a "challenges" -d 'Your open challenges, received and sent (signed in); accept, decline or cancel one'
complete -c gin -n "__fish_gin_needs_command" -f -a "ladder" -d 'Play one game of the rated ladder (signed in): wait in the pool\'s queue until the server seats you by rating, then play the game here'
complete -c gin -n "__fish_gin_needs_command" -f -a "leaderboard" -d 'A pool\'s leaderboard: its established ratings, best first (no sign-in needed)'
complete -c gin -n "__fish_gin_needs_command" -f -a "profile" -d 'An account\'s profile: its rating in each pool it has played, and its rated games'
complete -c gin -n "__fish_gin_needs_command" -f -a "completions" -d 'Print the shell completion script for gin (bash, zsh, fish, elvish, powershell)'
complete -c gin -n "__fish_gin_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand analyze" -l knock-limit -d 'The most deadwood a knock may leave (for the status line of a full hand; default: the rules\', else 10)' -r
complete -c gin -n "__fish_gin_using_subcommand analyze" -l rules -d 'The rules or format: a preset (standard, …, gin-7, rummy) or a file. gin-7 hands hold up to 8 cards; rummy hands are scored by its rules (aces high or low)' -r
complete -c gin -n "__fish_gin_using_subcommand analyze" -l players -d 'The table size, for gin-7 and rummy (their hand sizes depend on it)' -r
complete -c gin -n "__fish_gin_using_subcommand analyze" -l stdin -d 'Read one hand per line from stdin; write one answer line per input line'
complete -c gin -n "__fish_gin_using_subcommand analyze" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand replay" -l json -d 'Print every hand in full and the result as JSON (the book: reference/command-line.md)'
complete -c gin -n "__fish_gin_using_subcommand replay" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand play" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand play" -l vs-bot -d 'Play the server\'s house bot: random, simple or strong' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l or-bot -d 'Quick match, or play the server\'s house bot (random, simple or strong) if nobody asks for the same rules within --wait seconds' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l wait -d 'With --or-bot: how long to wait for a person first' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l join -d 'Join the game with this id' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l token -d 'With --join: come back to the seat this token holds (printed when you leave a game); an account token (gin_at_…) instead joins as that account' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l rules -d 'Rules: a preset (standard, wikihow, wikihow-alt, classic, american, oklahoma, multistage) or a TOML/JSON rules file' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l players -d 'The table size, for a table format (--rules three-player, teams, gin-7 or rummy, or a format file): rummy 2–6, gin-7 3–6; default: the format\'s own' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l name -d 'Your display name (signed in: the account\'s name is shown with it)' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l turn-secs -d 'With --vs-bot or --create: a turn clock of this many seconds (on expiry the server plays the turn: passes, draws from the stock, discards the least useful card)' -r
complete -c gin -n "__fish_gin_using_subcommand play" -l plain -d 'Line-by-line text instead of the full screen (screen readers, scripts); commands from stdin, `help` lists them'
complete -c gin -n "__fish_gin_using_subcommand play" -l no-color -d 'No colours (also when the NO_COLOR environment variable is set)'
complete -c gin -n "__fish_gin_using_subcommand play" -l create -d 'Create a game, print its id to share, and wait for someone to join'
complete -c gin -n "__fish_gin_using_subcommand play" -l rated -d 'With --create: a rated game (signed in; --rules a preset): whoever joins must be signed in to another account'
complete -c gin -n "__fish_gin_using_subcommand play" -l accept-fixed-deals -d 'With --join: join even though the game has fixed deals (its creator chose the seed and may know every hand; `gin list` marks such games)'
complete -c gin -n "__fish_gin_using_subcommand play" -l guest -d 'Play as a guest even when signed in (the seat is no account\'s)'
complete -c gin -n "__fish_gin_using_subcommand play" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand watch" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand watch" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand watch" -l plain -d 'Line-by-line text instead of the full screen (screen readers, scripts); commands from stdin, `help` lists them'
complete -c gin -n "__fish_gin_using_subcommand watch" -l no-color -d 'No colours (also when the NO_COLOR environment variable is set)'
complete -c gin -n "__fish_gin_using_subcommand watch" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand list" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand list" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand list" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand verify" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand verify" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand verify" -l save -d 'Fetched from the server: also save the verifiable record to this file' -r -F
complete -c gin -n "__fish_gin_using_subcommand verify" -l token -d 'Your seat\'s token: the events are read as your seat saw them, and every card you drew (those after a turn of the pile too) is checked against the record' -r
complete -c gin -n "__fish_gin_using_subcommand verify" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "create" -d 'Create an account (a person\'s, or with --bot a program\'s) and sign in to it'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "tokens" -d 'The account\'s API tokens: list, create (shown once), revoke'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "password" -d 'Set or change the account\'s password (every session ends; this one goes on with a new token)'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "export" -d 'Everything the server keeps about the account, as JSON (stdout, or --out FILE)'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "delete" -d 'Delete the account for good (its name is never given again; its games stay, its seats shown as deleted): you type its name to confirm'
complete -c gin -n "__fish_gin_using_subcommand account; and not __fish_seen_subcommand_from create tokens password export delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -l bot -d 'A program\'s account: shown as a bot wherever it plays; no password, its token is printed once'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -l password-stdin -d 'Read the password from stdin\'s first line instead of asking twice on the terminal'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -l no-password -d 'No password: the token kept here is the only way in (gin account password sets one later)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from create" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from tokens" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from tokens" -f -a "list" -d 'List the account\'s tokens (never their secrets), live ones first'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from tokens" -f -a "create" -d 'Create an API token for a program: printed once, on stdout'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from tokens" -f -a "revoke" -d 'Revoke one of the account\'s tokens by its id (gin account tokens list)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from tokens" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from password" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from password" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from password" -l password-stdin -d 'Read the passwords from stdin, one a line, instead of asking on the terminal'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from password" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from export" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from export" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from export" -l out -d 'Write it to this file (readable by you only) instead of stdout' -r -F
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from delete" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from delete" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from delete" -l confirm -d 'The account\'s name, exactly as registered, instead of typing it when asked' -r
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from delete" -l password-stdin -d 'Read the password (when the account has one) from stdin\'s first line'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "create" -d 'Create an account (a person\'s, or with --bot a program\'s) and sign in to it'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "tokens" -d 'The account\'s API tokens: list, create (shown once), revoke'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "password" -d 'Set or change the account\'s password (every session ends; this one goes on with a new token)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "export" -d 'Everything the server keeps about the account, as JSON (stdout, or --out FILE)'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete the account for good (its name is never given again; its games stay, its seats shown as deleted): you type its name to confirm'
complete -c gin -n "__fish_gin_using_subcommand account; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand login" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand login" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand login" -l token -d 'Sign in with this account token (gin_at_…) instead of a password (gin logout revokes it)' -r
complete -c gin -n "__fish_gin_using_subcommand login" -l password-stdin -d 'Read the password from stdin\'s first line instead of asking on the terminal'
complete -c gin -n "__fish_gin_using_subcommand login" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand logout" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand logout" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand logout" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand whoami" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand whoami" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand whoami" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand games" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand games" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand games" -l limit -d 'At most this many (the server\'s default: 20; at most 100)' -r
complete -c gin -n "__fish_gin_using_subcommand games" -l page-token -d 'The page after the one that printed this token' -r
complete -c gin -n "__fish_gin_using_subcommand games" -l json -d 'Print them as JSON'
complete -c gin -n "__fish_gin_using_subcommand games" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenge" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenge" -l rules -d 'Rules: a preset (standard, wikihow, wikihow-alt, classic, american, oklahoma, multistage), a TOML/JSON rules file, or a format of two seats (rummy --players 2)' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l players -d 'The table size, for a format (two: a challenge seats two accounts)' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l turn-secs -d 'A turn clock of this many seconds (on expiry the server plays the turn)' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l seat -d 'Your seat, 0 or 1 (default: drawn when accepted)' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l expires -d 'How long the challenge stays open, in seconds (the server\'s default: 600)' -r
complete -c gin -n "__fish_gin_using_subcommand challenge" -l rated -d 'A rated game (refused by a server without ratings)'
complete -c gin -n "__fish_gin_using_subcommand challenge" -l wait -d 'Wait for the answer; once accepted, play the game here'
complete -c gin -n "__fish_gin_using_subcommand challenge" -l plain -d 'Line-by-line text instead of the full screen (screen readers, scripts); commands from stdin, `help` lists them'
complete -c gin -n "__fish_gin_using_subcommand challenge" -l no-color -d 'No colours (also when the NO_COLOR environment variable is set)'
complete -c gin -n "__fish_gin_using_subcommand challenge" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -f -a "list" -d 'List them (the default)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -f -a "accept" -d 'Accept a challenge you received and play its game here (--no-play: print the game)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -f -a "decline" -d 'Decline a challenge you received'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -f -a "cancel" -d 'Cancel a challenge you sent'
complete -c gin -n "__fish_gin_using_subcommand challenges; and not __fish_seen_subcommand_from list accept decline cancel help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from list" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from list" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -l no-play -d 'Print the game\'s id and your seat instead of playing it'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -l plain -d 'Line-by-line text instead of the full screen (screen readers, scripts); commands from stdin, `help` lists them'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -l no-color -d 'No colours (also when the NO_COLOR environment variable is set)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from accept" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from decline" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from decline" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from decline" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from cancel" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from cancel" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from cancel" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from help" -f -a "list" -d 'List them (the default)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from help" -f -a "accept" -d 'Accept a challenge you received and play its game here (--no-play: print the game)'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from help" -f -a "decline" -d 'Decline a challenge you received'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from help" -f -a "cancel" -d 'Cancel a challenge you sent'
complete -c gin -n "__fish_gin_using_subcommand challenges; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand ladder" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand ladder" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand ladder" -l rules -d 'The ladder: a preset of two-player gin (standard, oklahoma, …), or three-player, teams, gin-7, rummy (with --players)' -r
complete -c gin -n "__fish_gin_using_subcommand ladder" -l players -d 'The table size, for gin-7 (3 to 6) and rummy (2 to 6)' -r
complete -c gin -n "__fish_gin_using_subcommand ladder" -l plain -d 'Line-by-line text instead of the full screen (screen readers, scripts); commands from stdin, `help` lists them'
complete -c gin -n "__fish_gin_using_subcommand ladder" -l no-color -d 'No colours (also when the NO_COLOR environment variable is set)'
complete -c gin -n "__fish_gin_using_subcommand ladder" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l rules -d 'Two-player gin under this preset: the pool gin/PRESET (the default: standard)' -r
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l pool -d 'The pool, by its id (gin/standard, three-player, teams, gin-7/4, rummy/3, …)' -r
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l limit -d 'At most this many lines (the server\'s default: 20; at most 100)' -r
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l offset -d 'Skip this many lines first (0: from the best)' -r
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -l json -d 'Print it as JSON'
complete -c gin -n "__fish_gin_using_subcommand leaderboard" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand profile" -l pool -d 'Only this pool\'s rated games, and more of them (by default: the newest few of each pool the account has played)' -r
complete -c gin -n "__fish_gin_using_subcommand profile" -l limit -d 'At most this many rated games a pool (default: 20 with --pool, 5 without; at most 100)' -r
complete -c gin -n "__fish_gin_using_subcommand profile" -l page-token -d 'With --pool: the page after the one that printed this token' -r
complete -c gin -n "__fish_gin_using_subcommand profile" -l server -d 'The server: http://host:port, or https://host:port for TLS' -r
complete -c gin -n "__fish_gin_using_subcommand profile" -l ca-cert -d 'For https: trust this CA certificate (PEM) instead of the system\'s roots' -r -F
complete -c gin -n "__fish_gin_using_subcommand profile" -l json -d 'Print it as JSON'
complete -c gin -n "__fish_gin_using_subcommand profile" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand completions" -s h -l help -d 'Print help'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "analyze" -d 'Minimum deadwood and best melds of a hand; for 11 cards, the best discard first'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "replay" -d 'Replay a game record of any format and print every hand, the final totals and the winner'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "play" -d 'Play a game on a server: quick match (default), a house bot, or a game to share'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "watch" -d 'Watch a game as a spectator'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "list" -d 'List the open games (with a free seat) on a server'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "verify" -d 'Check a finished game\'s deals against their commitments'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "account" -d 'Accounts: create one; its tokens, password, export; delete it'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "login" -d 'Sign in to an account on a server (the token is kept for the next commands)'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "logout" -d 'Sign out: the kept token is revoked on the server and forgotten here'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "whoami" -d 'Who is signed in on the server (the kept token\'s account)'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "games" -d 'An account\'s games (yours when signed in, by default), newest first; each game\'s id for gin verify and the record'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "challenge" -d 'Challenge an account to a game (signed in): it sees the challenge (gin challenges) and accepts or declines; with --wait, play it here once accepted'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "challenges" -d 'Your open challenges, received and sent (signed in); accept, decline or cancel one'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "ladder" -d 'Play one game of the rated ladder (signed in): wait in the pool\'s queue until the server seats you by rating, then play the game here'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "leaderboard" -d 'A pool\'s leaderboard: its established ratings, best first (no sign-in needed)'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "profile" -d 'An account\'s profile: its rating in each pool it has played, and its rated games'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "completions" -d 'Print the shell completion script for gin (bash, zsh, fish, elvish, powershell)'
complete -c gin -n "__fish_gin_using_subcommand help; and not __fish_seen_subcommand_from analyze replay play watch list verify account login logout whoami games challenge challenges ladder leaderboard profile completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "create" -d 'Create an account (a person\'s, or with --bot a program\'s) and sign in to it'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "tokens" -d 'The account\'s API tokens: list, create (shown once), revoke'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "password" -d 'Set or change the account\'s password (every session ends; this one goes on with a new token)'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "export" -d 'Everything the server keeps about the account, as JSON (stdout, or --out FILE)'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from account" -f -a "delete" -d 'Delete the account for good (its name is never given again; its games stay, its seats shown as deleted): you type its name to confirm'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from challenges" -f -a "list" -d 'List them (the default)'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from challenges" -f -a "accept" -d 'Accept a challenge you received and play its game here (--no-play: print the game)'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from challenges" -f -a "decline" -d 'Decline a challenge you received'
complete -c gin -n "__fish_gin_using_subcommand help; and __fish_seen_subcommand_from challenges" -f -a "cancel" -d 'Cancel a challenge you sent'
