# fish completion for notifyctl(1): commands, options, their values, and the ids of the notices
# the daemon has now.

# Options that take a value, for every command: the word after them is not an argument.
set -g __notifyctl_value_options --socket --relay --urgency --style --icon --app --tag --key --delay --fade-in \
    --fade-out --hold --ease-in --ease-out --after --action --value --timeout --title --body --for \
    --limit -n --outcome --since --format --fps --allow --held --folded-into --until

# The words before the cursor after `notifyctl`, less options and their values, each on a line:
# the command first, then its arguments. `run` stops at its command, whose own options count.
function __notifyctl_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l words
    set -l options_ended
    while set -q tokens[1]
        set -l token $tokens[1]
        set -e tokens[1]
        if test -z "$options_ended"; and test "$token" = --
            set options_ended 1
        else if test -z "$options_ended"; and string match -q -- '-*' $token
            if contains -- $token $__notifyctl_value_options
                set -e tokens[1]
            end
        else
            set -a words $token
            test "$words[1]" = run; and test (count $words) -ge 2; and set options_ended 1
        end
    end
    for word in $words
        echo $word
    end
end

# Whether no command has been given yet.
function __notifyctl_needs_command
    test (count (__notifyctl_words)) -eq 0
end

# Whether the command is one of the arguments, and (with -p N) whether N arguments follow it.
function __notifyctl_using
    argparse 'p/position=' -- $argv
    or return 1
    set -l words (__notifyctl_words)
    set -q words[1]; and contains -- $words[1] $argv
    or return 1
    set -q _flag_position; and test (math (count $words) - 1) -ne $_flag_position
    and return 1
    return 0
end

# Whether the cursor is in the command `run` runs, where only that command's completions apply.
function __notifyctl_in_run_command
    set -l words (__notifyctl_words)
    test "$words[1]" = run; and test (count $words) -ge 2
end

# `--socket PATH` as given on the command line.
function __notifyctl_socket_args
    set -l tokens (commandline -opc)
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = --socket; and set -q tokens[(math $i + 1)]
            printf '%s\n' --socket $tokens[(math $i + 1)]
        else if string match -q -- '--socket=*' $tokens[$i]
            printf '%s\n' --socket (string replace -- --socket= '' $tokens[$i])
        end
    end
end

# The unfinished notices, from `notifyctl list` (`#12  holding  normal  Title`): id, tab, the rest.
function __notifyctl_ids
    command -q notifyctl; or return
    command notifyctl (__notifyctl_socket_args)[-2..-1] list 2>/dev/null \
        | string replace -rf '^#(\d+)\s+(.*)$' '$1\t$2' | string replace -ra ' +' ' '
end

function __notifyctl_finished_ids
    command -q notifyctl; or return
    command notifyctl (__notifyctl_socket_args)[-2..-1] history 2>/dev/null \
        | string replace -rf '^#(\d+)\*?\s+(.*)$' '$1\t$2' | string replace -ra ' +' ' '
end

# The action keys of the notice named by the last argument, from `notifyctl get ID`.
function __notifyctl_actions
    command -q notifyctl; or return
    set -l id (string replace '#' '' -- (__notifyctl_words)[-1])
    command notifyctl (__notifyctl_socket_args)[-2..-1] get $id 2>/dev/null \
        | string replace -rf '^actions:\s*' '' | string split ', ' | string replace -r '=' '\t'
end

# What `notifyctl run` runs: complete it as its own command line.
function __notifyctl_run_command
    set -l words (__notifyctl_words)
    set -e words[1]
    complete -C (string join ' ' -- (string escape -- $words) (commandline -ct))
end

complete -c notifyctl -e

# Global options and the commands.
complete -c notifyctl -n 'not __notifyctl_in_run_command' -l socket -r -F -d 'Talk to the daemon at PATH'
complete -c notifyctl -n __notifyctl_needs_command -l version -d 'Print the version'
complete -c notifyctl -n __notifyctl_needs_command -l relay -x -d 'Publish through NATS at URL, no daemon (show only)'
complete -c notifyctl -n 'not __notifyctl_in_run_command' -s h -l help -d 'Show help'
complete -c notifyctl -n __notifyctl_needs_command -f
complete -c notifyctl -n __notifyctl_needs_command -f -a show -d 'Queue a notice and print its id'
complete -c notifyctl -n __notifyctl_needs_command -f -a progress -d 'Start a progress indicator and print its id'
complete -c notifyctl -n __notifyctl_needs_command -f -a update -d "Change a notice's title, body or value"
complete -c notifyctl -n __notifyctl_needs_command -f -a end -d 'Finish a notice, with an optional closing message'
complete -c notifyctl -n __notifyctl_needs_command -f -a cancel -d 'Cancel notices and print their ids'
complete -c notifyctl -n __notifyctl_needs_command -f -a dismiss -d 'Close notices as a person would and print their ids'
complete -c notifyctl -n __notifyctl_needs_command -f -a invoke -d "Choose one of a visible notice's actions"
complete -c notifyctl -n __notifyctl_needs_command -f -a snooze -d 'Put a notice off: it comes back later as it was'
complete -c notifyctl -n __notifyctl_needs_command -f -a unsnooze -d 'Bring a snoozed notice back now'
complete -c notifyctl -n __notifyctl_needs_command -f -a reply -d "Answer a visible notice's reply field"
complete -c notifyctl -n __notifyctl_needs_command -f -a menu -d "Hand a notice's actions to a picker"
complete -c notifyctl -n __notifyctl_needs_command -f -a read -d 'Mark finished notices read'
complete -c notifyctl -n __notifyctl_needs_command -f -a restore -d 'Show finished notices again, as new notices'
complete -c notifyctl -n __notifyctl_needs_command -f -a forget -d 'Remove finished notices from history and the store'
complete -c notifyctl -n __notifyctl_needs_command -f -a center -d 'Open or close the notification center'
complete -c notifyctl -n __notifyctl_needs_command -f -a suspend -d 'Hold back new notices (do not disturb)'
complete -c notifyctl -n __notifyctl_needs_command -f -a resume -d 'Show held-back notices again'
complete -c notifyctl -n __notifyctl_needs_command -f -a reload -d 'Make the daemon re-read its config'
complete -c notifyctl -n __notifyctl_needs_command -f -a status -d 'Show whether the queue is suspended, and its counts'
complete -c notifyctl -n __notifyctl_needs_command -f -a list -d 'List unfinished notices'
complete -c notifyctl -n __notifyctl_needs_command -f -a history -d 'List finished notices, newest first'
complete -c notifyctl -n __notifyctl_needs_command -f -a get -d 'Show one notice'
complete -c notifyctl -n __notifyctl_needs_command -f -a wait -d 'Wait until a notice finishes; exit by its outcome'
complete -c notifyctl -n __notifyctl_needs_command -f -a watch -d "Follow the queue's events"
complete -c notifyctl -n __notifyctl_needs_command -f -a run -d 'Run a command under a progress indicator'
complete -c notifyctl -n __notifyctl_needs_command -f -a call -d 'Call a Varlink method and print the replies'
complete -c notifyctl -n __notifyctl_needs_command -f -a help -d 'Show help, for everything or for one command'

# Notices and indicators.
complete -c notifyctl -n '__notifyctl_using show progress' -f
complete -c notifyctl -n '__notifyctl_using show progress' -l urgency -x -a 'low normal critical' -d Urgency
complete -c notifyctl -n '__notifyctl_using show progress' -l style -x -a 'clear blur' -d Style
complete -c notifyctl -n '__notifyctl_using show progress' -l icon -r -F -d 'An image file (PNG, SVG) or an icon name the popup shows beside the text'
complete -c notifyctl -n '__notifyctl_using show progress' -l app -x -d 'The application the notice is from'
complete -c notifyctl -n '__notifyctl_using show progress' -l tag -x -d 'A tag, for cancel --tag'
complete -c notifyctl -n '__notifyctl_using show progress' -l key -x -d 'Replace the unfinished notice with the same key'
complete -c notifyctl -n '__notifyctl_using show progress' -l delay -x -d 'Become due after D'
complete -c notifyctl -n '__notifyctl_using show progress' -l fade-in -x -d 'Fade in over D'
complete -c notifyctl -n '__notifyctl_using show progress' -l fade-out -x -d 'Fade out over D'
complete -c notifyctl -n '__notifyctl_using show' -l hold -x -d 'Stay fully visible for D (0: until ended)'
complete -c notifyctl -n '__notifyctl_using show' -l ease-in -x -a 'linear easeIn easeOut easeInOut' -d 'Fade-in curve'
complete -c notifyctl -n '__notifyctl_using show' -l ease-out -x -a 'linear easeIn easeOut easeInOut' -d 'Fade-out curve'
complete -c notifyctl -n '__notifyctl_using show' -l after -x -a '(__notifyctl_ids)' -d 'Wait until notice ID has finished'
complete -c notifyctl -n '__notifyctl_using show' -l action -x -d 'Add a button: KEY=LABEL'
complete -c notifyctl -n '__notifyctl_using show' -l reply -x -d 'Offer a reply field with this placeholder'
complete -c notifyctl -n '__notifyctl_using show' -l wait -d 'Wait until the notice finishes'
complete -c notifyctl -n '__notifyctl_using progress update' -l value -x -d 'Progress, in percent'
complete -c notifyctl -n '__notifyctl_using progress' -l timeout -x -d 'Time out when not ended within D (0: never)'

complete -c notifyctl -n '__notifyctl_using update end get wait invoke cancel dismiss reply menu snooze unsnooze' -f
complete -c notifyctl -n '__notifyctl_using -p 0 update end get wait invoke reply menu snooze unsnooze' -a '(__notifyctl_ids)'
complete -c notifyctl -n '__notifyctl_using snooze' -l until -x -a 'tomorrow' -d 'Until TIME: H:MM, tomorrow or epoch seconds'
complete -c notifyctl -n '__notifyctl_using cancel dismiss' -a '(__notifyctl_ids)'
complete -c notifyctl -n '__notifyctl_using dismiss' -l all -d 'Dismiss every visible notice'
complete -c notifyctl -n '__notifyctl_using dismiss' -l app -x -d 'Dismiss every unfinished notice of the apps GLOB matches'
complete -c notifyctl -n '__notifyctl_using menu' -l picker -x -d 'The picker command'
complete -c notifyctl -n '__notifyctl_using -p 1 invoke' -a '(__notifyctl_actions)'
complete -c notifyctl -n '__notifyctl_using update' -l title -x -d 'New title'
complete -c notifyctl -n '__notifyctl_using update' -l body -x -d 'New body'
complete -c notifyctl -n '__notifyctl_using end' -l hold -x -d 'Hold the closing message for D'
complete -c notifyctl -n '__notifyctl_using cancel' -l tag -x -d 'Cancel every notice tagged T'
complete -c notifyctl -n '__notifyctl_using cancel' -l all -d 'Cancel every unfinished notice'
complete -c notifyctl -n '__notifyctl_using cancel' -l now -d 'Vanish at once instead of fading out'

# History: what was missed.
complete -c notifyctl -n '__notifyctl_using read restore forget' -f -a '(__notifyctl_finished_ids)'
complete -c notifyctl -n '__notifyctl_using read' -l all -d 'Mark every finished notice read'
complete -c notifyctl -n '__notifyctl_using restore' -l last -x -d 'The N notices that finished last'
complete -c notifyctl -n '__notifyctl_using forget' -l app -x -d 'Forget every finished notice of the apps GLOB matches'
complete -c notifyctl -n '__notifyctl_using forget' -l all -d 'Forget the whole history'

# The notification center.
complete -c notifyctl -n '__notifyctl_using center' -f -a 'open close toggle'

# The queue, and looking at it.
complete -c notifyctl -n '__notifyctl_using suspend resume reload status list history watch call help' -f
complete -c notifyctl -n '__notifyctl_using suspend' -l for -x -d 'Resume by itself after D'
complete -c notifyctl -n '__notifyctl_using suspend' -l allow -x -a 'critical none' -d 'What still shows'
complete -c notifyctl -n '__notifyctl_using list' -l held -d 'Only those do-not-disturb holds back'
complete -c notifyctl -n '__notifyctl_using list' -l snoozed -d 'Only snoozed ones, with when each comes back'
complete -c notifyctl -n '__notifyctl_using history' -l folded-into -x -d 'Only notices folded into summary notice ID'
complete -c notifyctl -n '__notifyctl_using status list get history' -l json -d 'Print the reply as JSON'
complete -c notifyctl -n '__notifyctl_using history' -s n -l limit -x -d 'Show at most N notices'
complete -c notifyctl -n '__notifyctl_using history' -l app -x -d 'Only notices from app NAME'
complete -c notifyctl -n '__notifyctl_using history' -l outcome -x -a 'completed cancelled timedOut replaced dismissed folded missed' -d 'Only notices that ended so'
complete -c notifyctl -n '__notifyctl_using history' -l since -x -d 'Only notices finished since WHEN (2h, or epoch seconds)'
complete -c notifyctl -n '__notifyctl_using history' -l unread -d 'Only notices nobody saw'
complete -c notifyctl -n '__notifyctl_using watch' -l json -d 'Print each event as one JSON object per line'
complete -c notifyctl -n '__notifyctl_using watch' -l format -x -a 'auto lines json waybar i3bar' -d 'How to print events'
complete -c notifyctl -n '__notifyctl_using watch' -l frames -d 'Also report fades frame by frame'
complete -c notifyctl -n '__notifyctl_using watch' -l fps -x -d 'Frames per second'

# run COMMAND, call METHOD, help COMMAND.
complete -c notifyctl -n '__notifyctl_using -p 0 run' -l title -x -d 'Indicator title'
complete -c notifyctl -n '__notifyctl_using -p 0 run' -l timeout -x -d 'Time the indicator out D after its last update'
complete -c notifyctl -n '__notifyctl_using -p 0 run' -f -a '(__fish_complete_command)'
complete -c notifyctl -n 'not __notifyctl_using -p 0 run; and __notifyctl_using run' -f -a '(__notifyctl_run_command)'
complete -c notifyctl -n '__notifyctl_using call' -l more -d 'Ask for several replies'
complete -c notifyctl -n '__notifyctl_using -p 0 call' -a 'Show Progress Update End Cancel Invoke Reply Suspend Resume Get List History Status Wait Watch Reload Dismiss Read Restore Forget Center org.varlink.service.GetInfo org.varlink.service.GetInterfaceDescription'
complete -c notifyctl -n '__notifyctl_using -p 0 help' -a 'show progress update end cancel dismiss invoke snooze unsnooze reply menu read restore forget suspend resume reload status list history get wait watch run call help'
