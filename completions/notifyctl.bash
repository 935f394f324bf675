# bash completion for notifyctl(1): commands, options, their values, and the ids of the notices
# the daemon has now. Needs nothing but bash; uses bash-completion's helpers when they are loaded.

_notifyctl_commands='show progress update end cancel dismiss invoke snooze unsnooze reply menu read restore forget center
suspend resume
reload status list history get wait watch run call help'

# Options that take a value, for every command (the next word is the value, not an argument).
_notifyctl_value_options='--socket --relay --urgency --style --icon --app --tag --key --delay --fade-in --fade-out
--hold --ease-in --ease-out --after --action --value --timeout --title --body --for --limit -n
--outcome --since --format --fps --allow --held --folded-into --reply --picker --last --until'

# The options of one command, besides --socket and --help.
_notifyctl_options_of() {
    local appearance='--urgency --style --icon --app --tag --key --delay --fade-in --fade-out'
    case $1 in
        show) echo "$appearance --hold --ease-in --ease-out --after --action --reply --wait" ;;
        progress) echo "$appearance --value --timeout" ;;
        update) echo '--title --body --value' ;;
        end) echo '--hold' ;;
        cancel) echo '--tag --all --now' ;;
        dismiss) echo '--all --app' ;;
        menu) echo '--picker' ;;
        snooze) echo '--until' ;;
        read) echo '--all' ;;
        restore) echo '--last' ;;
        forget) echo '--app --all' ;;
        suspend) echo '--for --allow' ;;
        status | get) echo '--json' ;;
        list) echo '--json --held --snoozed' ;;
        history) echo '--json --limit -n --app --outcome --since --folded-into --unread' ;;
        watch) echo '--json --format --frames --fps' ;;
        run) echo '--title --timeout' ;;
        call) echo '--more' ;;
    esac
}

# The ids of the unfinished notices, from `notifyctl list` (which prints `#12  holding ...`).
_notifyctl_ids() {
    local -a socket_args=()
    [[ -n $1 ]] && socket_args=(--socket "$1")
    command notifyctl "${socket_args[@]}" list 2>/dev/null | sed -n 's/^#\([0-9][0-9]*\).*/\1/p'
}

# The ids of the finished notices, from `notifyctl history` (`#12  completed ...`, `#13*` unread).
_notifyctl_finished_ids() {
    local -a socket_args=()
    [[ -n $1 ]] && socket_args=(--socket "$1")
    command notifyctl "${socket_args[@]}" history 2>/dev/null | sed -n 's/^#\([0-9][0-9]*\).*/\1/p'
}

# The keys of a notice's actions, from the `actions: yes=Yes, no=No` line of `notifyctl get`.
_notifyctl_actions() {
    local -a socket_args=()
    [[ -n $1 ]] && socket_args=(--socket "$1")
    command notifyctl "${socket_args[@]}" get "$2" 2>/dev/null |
        sed -n 's/^actions: *//p' | tr ',' '\n' | sed 's/^ *//; s/=.*//'
}

_notifyctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=''
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # `--opt=value` arrives as three words when `=` is in COMP_WORDBREAKS, as it is by default.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi
    COMPREPLY=()

    # Walk the words before the cursor: the command, --socket, and the positional arguments.
    local verb='' socket='' word i
    local -a positionals=()
    local options_ended=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ -z $options_ended && $word == -- ]]; then
            options_ended=1
        elif [[ -z $options_ended && $word == -* ]]; then
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                [[ $word == --socket ]] && socket=${COMP_WORDS[i + 2]}
                ((i += 2))
            elif [[ " ${_notifyctl_value_options//$'\n'/ } " == *" $word "* ]]; then
                [[ $word == --socket ]] && socket=${COMP_WORDS[i + 1]}
                ((i++))
            fi
            [[ $word == --socket=* ]] && socket=${word#--socket=}
        elif [[ -z $verb ]]; then
            verb=$word
        else
            positionals+=("$word")
            # run's options end at its command.
            [[ $verb == run ]] && options_ended=1
        fi
    done
    # `--socket ~/x.sock`: expand the tilde the shell would expand.
    [[ $socket == "~/"* ]] && socket=$HOME/${socket#"~/"}

    # run COMMAND ...: complete the command and its arguments as bash would.
    if [[ $verb == run && ${#positionals[@]} -gt 0 || $verb == run && -n $options_ended ]]; then
        local start=$((COMP_CWORD - ${#positionals[@]}))
        if declare -F _command_offset >/dev/null; then
            _command_offset "$start"
        elif ((${#positionals[@]} == 0)); then
            COMPREPLY=($(compgen -c -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return 0
    fi

    # The value of an option.
    case $prev in
        --urgency) COMPREPLY=($(compgen -W 'low normal critical' -- "$cur")); return 0 ;;
        --style) COMPREPLY=($(compgen -W 'clear blur' -- "$cur")); return 0 ;;
        --icon) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
        --ease-in | --ease-out)
            COMPREPLY=($(compgen -W 'linear easeIn easeOut easeInOut' -- "$cur")); return 0 ;;
        --outcome)
            COMPREPLY=($(compgen -W 'completed cancelled timedOut replaced dismissed folded missed' -- "$cur"))
            return 0 ;;
        --format) COMPREPLY=($(compgen -W 'auto lines json waybar i3bar' -- "$cur")); return 0 ;;
        --allow) COMPREPLY=($(compgen -W 'critical none' -- "$cur")); return 0 ;;
        --after) COMPREPLY=($(compgen -W "$(_notifyctl_ids "$socket")" -- "$cur")); return 0 ;;
        --socket)
            if declare -F _filedir >/dev/null; then _filedir; else COMPREPLY=($(compgen -f -- "$cur")); fi
            return 0 ;;
    esac
    if [[ " ${_notifyctl_value_options//$'\n'/ } " == *" $prev "* ]]; then
        return 0 # a free value: a title, a duration, a number
    fi

    if [[ -z $verb ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--socket --relay --version --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$_notifyctl_commands" -- "$cur"))
        fi
        return 0
    fi

    if [[ $cur == -* && -z $options_ended ]]; then
        COMPREPLY=($(compgen -W "$(_notifyctl_options_of "$verb") --socket --help" -- "$cur"))
        return 0
    fi

    # Positional arguments.
    local position=${#positionals[@]}
    case $verb in
        update | end | get | wait)
            ((position == 0)) && COMPREPLY=($(compgen -W "$(_notifyctl_ids "$socket")" -- "$cur")) ;;
        cancel | dismiss)
            COMPREPLY=($(compgen -W "$(_notifyctl_ids "$socket")" -- "$cur")) ;;
        read | restore | forget)
            COMPREPLY=($(compgen -W "$(_notifyctl_finished_ids "$socket")" -- "$cur")) ;;
        center)
            ((position == 0)) && COMPREPLY=($(compgen -W 'open close toggle' -- "$cur")) ;;
        reply | menu | snooze | unsnooze)
            ((position == 0)) && COMPREPLY=($(compgen -W "$(_notifyctl_ids "$socket")" -- "$cur")) ;;
        invoke)
            if ((position == 0)); then
                COMPREPLY=($(compgen -W "$(_notifyctl_ids "$socket")" -- "$cur"))
            elif ((position == 1)); then
                COMPREPLY=($(compgen -W "$(_notifyctl_actions "$socket" "${positionals[0]#\#}")" -- "$cur"))
            fi ;;
        help)
            ((position == 0)) && COMPREPLY=($(compgen -W "$_notifyctl_commands" -- "$cur")) ;;
        call)
            ((position == 0)) && COMPREPLY=($(compgen -W 'Show Progress Update End Cancel Invoke Reply Suspend
                Resume Get List History Status Wait Watch Reload Dismiss Read Restore Forget Center
                org.varlink.service.GetInfo
                org.varlink.service.GetInterfaceDescription' -- "$cur")) ;;
        run)
            COMPREPLY=($(compgen -c -- "$cur")) ;;
    esac
    return 0
}

complete -F _notifyctl notifyctl
