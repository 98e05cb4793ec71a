# bash completion for vppcfg, vppcfg-sim, trex-loadtest and trex-emu
_vppcfg() {
    local cur prev words cword
    _init_completion || return
    local cmds="check dump plan apply confirm schema"
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
        return
    fi
    case "$prev" in
        -c|--config|-o|--output|--lock-file)
            _filedir
            return ;;
        --vpp-api-socket)
            _filedir
            return ;;
        --vpp-json-dir|--state-dir)
            _filedir -d
            return ;;
        --format)
            case "${words[1]}" in
                check) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
                plan) COMPREPLY=($(compgen -W "cli json" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "yaml json" -- "$cur")) ;;
            esac
            return ;;
    esac
    local vpp="--vpp-api-socket --vpp-json-dir"
    local opts
    case "${words[1]}" in
        check) opts="--help -c --config --format" ;;
        dump) opts="--help $vpp --format -o --output" ;;
        plan) opts="--help -c --config $vpp --format -o --output --novpp --detailed-exitcode" ;;
        apply) opts="--help -c --config $vpp --dry-run --detailed-exitcode --confirm --lock-file --state-dir" ;;
        confirm) opts="--help --state-dir" ;;
        schema) opts="--help -o --output" ;;
        *) opts="--help" ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        _filedir '@(yaml|yml)'
    fi
}
complete -F _vppcfg vppcfg

_trex_loadtest() {
    local cur prev words cword
    _init_completion || return
    if [ "$cword" -eq 1 ]; then
        COMPREPLY=($(compgen -W "ramp ndr report --help" -- "$cur"))
        return
    fi
    case "$prev" in
        -o|--output|--trex-client-path) _filedir; return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$("${words[0]}" "${words[1]}" --help 2>/dev/null | grep -oE -- '--[a-z0-9-]+' | sort -u)" -- "$cur"))
    else
        _filedir
    fi
}
complete -F _trex_loadtest trex-loadtest

_vppcfg_options_only() {
    local cur prev words cword
    _init_completion || return
    COMPREPLY=($(compgen -W "$("${words[0]}" --help 2>/dev/null | grep -oE -- '--[a-z0-9-]+' | sort -u)" -- "$cur"))
}
complete -F _vppcfg_options_only vppcfg-sim trex-emu
