# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ad_global_optspecs
    string join \n h/help V/version
end

function __fish_ad_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ad_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ad_using_subcommand
    set -l cmd (__fish_ad_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ad -n "__fish_ad_needs_command" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_needs_command" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_needs_command" -f -a "check" -d 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems'
complete -c ad -n "__fish_ad_needs_command" -f -a "fmt" -d 'Rewrite scripts in agent-device\'s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review'
complete -c ad -n "__fish_ad_needs_command" -f -a "commands" -d 'List the commands scripts can use, with their arguments'
complete -c ad -n "__fish_ad_needs_command" -f -a "explain" -d 'Explain a diagnostic code (what it means, an example and the fix), or list all codes'
complete -c ad -n "__fish_ad_needs_command" -f -a "parse" -d 'Print how a script parses: agent-device\'s view (default) or ad\'s syntax tree'
complete -c ad -n "__fish_ad_needs_command" -f -a "lsp" -d 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md'
complete -c ad -n "__fish_ad_needs_command" -f -a "dap" -d 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md'
complete -c ad -n "__fish_ad_needs_command" -f -a "run" -d 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors'
complete -c ad -n "__fish_ad_needs_command" -f -a "heal" -d 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report\'s suggestions are tried as the step\'s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human'
complete -c ad -n "__fish_ad_needs_command" -f -a "test" -d 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed'
complete -c ad -n "__fish_ad_needs_command" -f -a "doctor" -d 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)'
complete -c ad -n "__fish_ad_needs_command" -f -a "session" -d 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`'
complete -c ad -n "__fish_ad_needs_command" -f -a "build" -d 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`'
complete -c ad -n "__fish_ad_needs_command" -f -a "export" -d 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5\'s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`'
complete -c ad -n "__fish_ad_needs_command" -f -a "import" -d 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`'
complete -c ad -n "__fish_ad_needs_command" -f -a "init" -d 'Start a project: ad.toml, an example script and app model, and the next commands to run'
complete -c ad -n "__fish_ad_needs_command" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)'
complete -c ad -n "__fish_ad_needs_command" -f -a "man" -d 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in'
complete -c ad -n "__fish_ad_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ad -n "__fish_ad_using_subcommand check" -l format -d 'Output format' -r -f -a "human\t'Rendered reports with source excerpts (colour on a terminal)'
json\t'A JSON array of diagnostics with 1-based positions'
sarif\t'SARIF 2.1.0, for code-scanning upload'
github\t'GitHub Actions workflow annotations'"
complete -c ad -n "__fish_ad_using_subcommand check" -l profile -d 'Check scripts as test flows or as handoff scripts (default: inferred; a terminal `close` or no recorder evidence makes a flow, a close-less script with target-v1 evidence a handoff). Overrides check.profile and [profiles] in ad.toml' -r -f -a "auto\t''
flow\t''
handoff\t''"
complete -c ad -n "__fish_ad_using_subcommand check" -l rule -d 'Set a rule\'s level, e.g. `--rule AD301=off` or `--rule AD733=error` (repeatable; overrides ad.toml). Levels: off, info, warning, error' -r
complete -c ad -n "__fish_ad_using_subcommand check" -l config -d 'Use this configuration file instead of looking for ad.toml beside each script' -r -F
complete -c ad -n "__fish_ad_using_subcommand check" -l debounce -d 'With --watch: how long a file must stay unchanged before it is re-checked' -r
complete -c ad -n "__fish_ad_using_subcommand check" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand check" -l deny-warnings -d 'Exit 1 on warnings too'
complete -c ad -n "__fish_ad_using_subcommand check" -l fix -d 'Apply the available fixes in place, then report what remains'
complete -c ad -n "__fish_ad_using_subcommand check" -l parity-only -d 'Only report diagnostics that agent-device 0.21.5 itself would reject the script for'
complete -c ad -n "__fish_ad_using_subcommand check" -l watch -d 'Keep checking: after the first report, re-check each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C'
complete -c ad -n "__fish_ad_using_subcommand check" -l maestro -d 'Read .yaml and .yml paths as Maestro flows, as `agent-device replay FLOW.yaml --maestro` routes them (folders are searched for *.yaml, *.yml and *.ad; .ad scripts are checked as usual): every refusal of agent-device\'s Maestro reader, and what would fail when the flow is planned or run (docs/maestro.md). A .yaml named by `[maestro] paths` of ad.toml is a flow without it'
complete -c ad -n "__fish_ad_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand check" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand fmt" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand fmt" -l check -d 'Do not write; exit 1 and list the files that would change'
complete -c ad -n "__fish_ad_using_subcommand fmt" -l diff -d 'Do not write; print a unified diff of the changes'
complete -c ad -n "__fish_ad_using_subcommand fmt" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand fmt" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand commands" -l all -d 'Also list retired words, CLI aliases and client-only commands (which do not work in scripts)'
complete -c ad -n "__fish_ad_using_subcommand commands" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand commands" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand explain" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand explain" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand parse" -l format -d 'Output shape' -r -f -a "agent-device\t'Exactly what agent-device 0.21.5\'s readers return (ok, metadata, parse, planDigest)'
tree\t'The lossless syntax tree with spans'"
complete -c ad -n "__fish_ad_using_subcommand parse" -l platform -d 'The replay request\'s `--platform`, which enters the digest' -r
complete -c ad -n "__fish_ad_using_subcommand parse" -l target -d 'The replay request\'s `--target`, which enters the digest' -r
complete -c ad -n "__fish_ad_using_subcommand parse" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand parse" -l digest -d 'Also print the replay plan digest (what `run --from N --plan-digest` checks); for a `fragment-v1` file, also its pin digest (`fragmentDigest`, what an include\'s `fragment-ref-v1` pins)'
complete -c ad -n "__fish_ad_using_subcommand parse" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand parse" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand lsp" -l clientProcessId -d 'Accepted (and ignored) for clients that pass their process id' -r
complete -c ad -n "__fish_ad_using_subcommand lsp" -l stdio -d 'Accepted for editors that always pass it; stdio is the only transport'
complete -c ad -n "__fish_ad_using_subcommand lsp" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand lsp" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand dap" -l port -d 'Serve one client on 127.0.0.1:PORT instead of stdin/stdout (0: any free port, printed on stderr)' -r
complete -c ad -n "__fish_ad_using_subcommand dap" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand dap" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand run" -s e -l env -d 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l from -d 'Resume at step N (1-based, action lines only); requires --plan-digest' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l plan-digest -d 'The plan digest the resume is checked against (`ad parse --digest`, or the divergence report\'s resume line); requires --from' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l save-script -d 'Arm a repair transaction (docs/repair.md): every step is recorded with its evidence, a divergence holds the session live in ad\'s session daemon for `ad session …` and `--from`, and `ad session close` commits PATH (default: <basename>.healed.ad beside the script; --overwrite lets it replace an existing file, never the script)' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l backend -d 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR\'s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim' -r -f -a "sim\t''
web\t''
agent-device\t''"
complete -c ad -n "__fish_ad_using_subcommand run" -l record-fixture -d 'Record the run\'s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l browser -d 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l device -d 'With --backend agent-device: the device, by name (agent-device\'s --device)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l udid -d 'With --backend agent-device: the iOS device or simulator UDID' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l serial -d 'With --backend agent-device: the Android device serial' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l tenant -d 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l run-id -d 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l lease-id -d 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l lease-backend -d 'With --tenant: agent-device\'s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon\'s)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l app -d 'The simulator\'s app model: a JSON file, or a model name found in an apps/ folder (default: the model whose "app" is the id the script opens, in apps/ beside the script or above it, or examples/apps)' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l artifacts-dir -d 'Where run folders are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l session -d 'Session name (AD_SESSION); a session a run leaves live is kept, for `--from`, in the per-user state folder ($AD_STATE_DIR, else $XDG_STATE_HOME/ad or ~/.local/state/ad), owner-only, secure fields masked' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l platform -d 'Platform for the plan digest and AD_PLATFORM (default: the context header)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l target -d 'Target for the plan digest and AD_TARGET (default: the context header)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l level -d 'Divergence report size' -r -f -a "digest\t'≤ 8 KiB, no suggestion entries'
default\t'≤ 24 KiB'
full\t'≤ 64 KiB'"
complete -c ad -n "__fish_ad_using_subcommand run" -l report-html -d 'Write a static HTML report of the run into DIR (index.html and the script\'s page, with its steps, screenshots and divergence report): see docs/run.md' -r -F
complete -c ad -n "__fish_ad_using_subcommand run" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand run" -l keep-session -d 'Skip the script\'s terminal `close` and leave the session live'
complete -c ad -n "__fish_ad_using_subcommand run" -l overwrite -d 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)'
complete -c ad -n "__fish_ad_using_subcommand run" -l offline -d 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser\'s own background traffic is always off)'
complete -c ad -n "__fish_ad_using_subcommand run" -l allow-local-urls -d 'Web backend: let the browser show local files outside the script\'s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run\'s observations and reports'
complete -c ad -n "__fish_ad_using_subcommand run" -l json -d 'Print the structured result (JSON) on stdout instead of the summary'
complete -c ad -n "__fish_ad_using_subcommand run" -l force -d 'Run even though `ad check` reports errors (only errors agent-device itself would accept: useful to see how a run fails)'
complete -c ad -n "__fish_ad_using_subcommand run" -s q -l quiet -d 'No live progress on stderr'
complete -c ad -n "__fish_ad_using_subcommand run" -l maestro -d 'Run a Maestro flow (YAML) with agent-device\'s Maestro engine semantics, as `agent-device replay FLOW.yaml --maestro` does (docs/maestro.md): selectors, waits, runFlow/repeat/retry and scripts on any backend, with the same journal and run folder'
complete -c ad -n "__fish_ad_using_subcommand run" -l allow-http -d 'With --maestro: let a runScript\'s http.post reach this machine (localhost only)'
complete -c ad -n "__fish_ad_using_subcommand run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand run" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand heal" -s e -l env -d 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -s o -l output -d 'Where --write commits the healed script' -r -F
complete -c ad -n "__fish_ad_using_subcommand heal" -l backend -d 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR\'s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim' -r -f -a "sim\t''
web\t''
agent-device\t''"
complete -c ad -n "__fish_ad_using_subcommand heal" -l browser -d 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)' -r -F
complete -c ad -n "__fish_ad_using_subcommand heal" -l device -d 'With --backend agent-device: the device, by name (agent-device\'s --device)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l udid -d 'With --backend agent-device: the iOS device or simulator UDID' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l serial -d 'With --backend agent-device: the Android device serial' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l tenant -d 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l run-id -d 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l lease-id -d 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l lease-backend -d 'With --tenant: agent-device\'s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon\'s)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l app -d 'The simulator\'s app model (as `ad run --app`)' -r -F
complete -c ad -n "__fish_ad_using_subcommand heal" -l artifacts-dir -d 'Where the proving runs\' folders and the heal record are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]' -r -F
complete -c ad -n "__fish_ad_using_subcommand heal" -l session -d 'Session name the runs use (AD_SESSION)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l platform -d 'Platform for AD_PLATFORM (default: the context header)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l target -d 'Target for AD_TARGET (default: the context header)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand heal" -l record-fixture -d 'Record the run\'s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)' -r -F
complete -c ad -n "__fish_ad_using_subcommand heal" -l write -d 'Commit the proven change as the healed script (default <basename>.healed.ad beside the script; never the script itself; an existing file only with --overwrite)'
complete -c ad -n "__fish_ad_using_subcommand heal" -l offline -d 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser\'s own background traffic is always off)'
complete -c ad -n "__fish_ad_using_subcommand heal" -l allow-local-urls -d 'Web backend: let the browser show local files outside the script\'s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run\'s observations and reports'
complete -c ad -n "__fish_ad_using_subcommand heal" -l json -d 'Print the heal record (JSON, docs/schemas/heal-record.schema.json) on stdout instead of the report, which goes to stderr'
complete -c ad -n "__fish_ad_using_subcommand heal" -l overwrite -d 'With --write: replace an existing file at the healed script\'s path (never the script itself)'
complete -c ad -n "__fish_ad_using_subcommand heal" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand heal" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand test" -s e -l env -d 'Set a script variable for every script (repeatable)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l platform -d 'Keep only scripts whose `context platform=` matches (`apple` matches ios and macos)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l timeout -d 'Per-script timeout in device-clock milliseconds (overrides `context timeout=`)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l retries -d 'Retries per failing script, 0..3 (overrides `context retries=`)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -s j -l jobs -d 'Scripts run in parallel, each in its own session' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l shard -d 'Run only this part of the suite: INDEX/COUNT, 1-based (`--shard 2/4`)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l app -d 'The simulator\'s app model (default: found by app id; see `ad run --help`)' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l artifacts-dir -d 'Where run folders are written [default: `[run] artifacts-dir` of the ad.toml that applies to the first path, else ad-artifacts]' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l report-junit -d 'Write a JUnit XML report (one testcase per script)' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l report-json -d 'Write a JSON report' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l heal-proposals -d 'For each script that failed, write DIR/<script>.diff: the change `ad heal` proposes and proves by a fresh run of the whole changed script (none when a step needs a human, whose repair-armed command is printed instead). Listed after the result line (docs/repair.md)' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l report-html -d 'Write a static HTML report into DIR (index.html, a page per script, the screenshots and observations it shows): open DIR/index.html from a CI artifact download. See docs/run.md' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l debounce -d 'With --watch: how long a file must stay unchanged before it is re-run' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l device -d 'With --backend agent-device: the device, by name (agent-device\'s --device)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l udid -d 'With --backend agent-device: the iOS device or simulator UDID' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l serial -d 'With --backend agent-device: the Android device serial' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l tenant -d 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l run-id -d 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l lease-id -d 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l lease-backend -d 'With --tenant: agent-device\'s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon\'s)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l backend -d 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR\'s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim' -r -f -a "sim\t''
web\t''
agent-device\t''"
complete -c ad -n "__fish_ad_using_subcommand test" -l record-fixture -d 'Record the run\'s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l browser -d 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)' -r -F
complete -c ad -n "__fish_ad_using_subcommand test" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand test" -l fail-fast -d 'Stop starting scripts after the first failure (the rest are reported as not run)'
complete -c ad -n "__fish_ad_using_subcommand test" -l watch -d 'Keep testing: after the first run, re-run each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C. Reports are rewritten each cycle with the scripts it ran'
complete -c ad -n "__fish_ad_using_subcommand test" -l overwrite -d 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)'
complete -c ad -n "__fish_ad_using_subcommand test" -l offline -d 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser\'s own background traffic is always off)'
complete -c ad -n "__fish_ad_using_subcommand test" -l allow-local-urls -d 'Web backend: let the browser show local files outside the script\'s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run\'s observations and reports'
complete -c ad -n "__fish_ad_using_subcommand test" -l golden -d 'With --backend recorded:DIR: diff the run\'s normalized transcript against DIR/golden.txt (saved by --record-fixture DIR); a difference fails the suite'
complete -c ad -n "__fish_ad_using_subcommand test" -l update-golden -d 'With --backend recorded:DIR: rewrite DIR/golden.txt from this run'
complete -c ad -n "__fish_ad_using_subcommand test" -l maestro -d 'Run the Maestro flows (.yaml, .yml) under PATHS with agent-device\'s Maestro engine semantics (as `agent-device test DIR --maestro`), one fresh backend each: see `ad run --maestro` and docs/maestro.md'
complete -c ad -n "__fish_ad_using_subcommand test" -l allow-http -d 'With --maestro: let a runScript\'s http.post reach this machine (localhost only)'
complete -c ad -n "__fish_ad_using_subcommand test" -l json -d 'Print the suite report (JSON) on stdout (with --maestro)'
complete -c ad -n "__fish_ad_using_subcommand test" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand test" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand doctor" -l browser -d 'The browser the web backend would drive (default: $CHROME_PATH, else /usr/bin/chromium)' -r -F
complete -c ad -n "__fish_ad_using_subcommand doctor" -l json -d 'Print the rows as JSON'
complete -c ad -n "__fish_ad_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand session" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand session" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand build" -s o -l output -d 'Where to write the plain script (`-` for stdout)' -r -F
complete -c ad -n "__fish_ad_using_subcommand build" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand build" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand build" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand export" -s o -l output -d 'Write the flow here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced, as agent-device\'s `--out` does; the script itself is never overwritten. The written path is printed' -r -F
complete -c ad -n "__fish_ad_using_subcommand export" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand export" -l maestro -d 'Export to Maestro YAML (the only format for now; required)'
complete -c ad -n "__fish_ad_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand export" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand import" -s o -l output -d 'Write the script here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced; the flow itself is never overwritten. The written path is printed' -r -F
complete -c ad -n "__fish_ad_using_subcommand import" -l app -d 'The app model the fragments\' entry guards are recorded on (the simulated device runs the flow to each include); by default the flow\'s app in the `apps/` folders above OUT.ad, as `ad run` finds it' -r -F
complete -c ad -n "__fish_ad_using_subcommand import" -l max-file-size -d 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device\'s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)' -r
complete -c ad -n "__fish_ad_using_subcommand import" -l flatten -d 'Inline the flows `runFlow` files name, in place (their own includes too), instead of writing each as a fragment beside OUT.ad'
complete -c ad -n "__fish_ad_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand import" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand init" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ad -n "__fish_ad_using_subcommand completions" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand man" -l out -d 'The folder the pages are written to (created when missing)' -r -F
complete -c ad -n "__fish_ad_using_subcommand man" -s h -l help -d 'Print help'
complete -c ad -n "__fish_ad_using_subcommand man" -s V -l version -d 'Print version'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "check" -d 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "fmt" -d 'Rewrite scripts in agent-device\'s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "commands" -d 'List the commands scripts can use, with their arguments'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "explain" -d 'Explain a diagnostic code (what it means, an example and the fix), or list all codes'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "parse" -d 'Print how a script parses: agent-device\'s view (default) or ad\'s syntax tree'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "lsp" -d 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "dap" -d 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "run" -d 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "heal" -d 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report\'s suggestions are tried as the step\'s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "test" -d 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "doctor" -d 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "session" -d 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "build" -d 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "export" -d 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5\'s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "import" -d 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "init" -d 'Start a project: ad.toml, an example script and app model, and the next commands to run'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "completions" -d 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "man" -d 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in'
complete -c ad -n "__fish_ad_using_subcommand help; and not __fish_seen_subcommand_from check fmt commands explain parse lsp dap run heal test doctor session build export import init completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
