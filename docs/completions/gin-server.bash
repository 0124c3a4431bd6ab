_gin__server() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="gin__server"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gin__server)
            opts="-h -V --addr --db --tls-cert --tls-key --max-message-bytes --rate-per-sec --registrations-per-hour --session-days --request-timeout-secs --max-calls-per-connection --max-open-games --max-open-games-per-caller --open-game-ttl-secs --idle-game-ttl-secs --stream-buffer --heartbeat-secs --keep-finished-secs --threads --metrics-addr --cluster-addr --lease-ms --route-tag --trusted-proxies --ladder-house-bots --ladder-house-after-secs --ladder-turn-secs --log-format --completions --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-message-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rate-per-sec)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --registrations-per-hour)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session-days)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-calls-per-connection)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-open-games-per-caller)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-open-games)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --open-game-ttl-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-game-ttl-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stream-buffer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heartbeat-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --keep-finished-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --metrics-addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster-addr)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lease-ms)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --route-tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trusted-proxies)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ladder-house-after-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ladder-turn-secs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --completions)
                    COMPREPLY=($(compgen -W "bash elvish fish powershell zsh" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _gin__server -o nosort -o bashdefault -o default gin-server
else
    complete -F _gin__server -o bashdefault -o default gin-server
fi
