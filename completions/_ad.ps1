
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ad' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ad'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ad' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrite scripts in agent-device''s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review')
            [CompletionResult]::new('commands', 'commands', [CompletionResultType]::ParameterValue, 'List the commands scripts can use, with their arguments')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain a diagnostic code (what it means, an example and the fix), or list all codes')
            [CompletionResult]::new('parse', 'parse', [CompletionResultType]::ParameterValue, 'Print how a script parses: agent-device''s view (default) or ad''s syntax tree')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md')
            [CompletionResult]::new('dap', 'dap', [CompletionResultType]::ParameterValue, 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors')
            [CompletionResult]::new('heal', 'heal', [CompletionResultType]::ParameterValue, 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report''s suggestions are tried as the step''s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5''s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Start a project: ad.toml, an example script and app model, and the next commands to run')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ad;check' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Check scripts as test flows or as handoff scripts (default: inferred; a terminal `close` or no recorder evidence makes a flow, a close-less script with target-v1 evidence a handoff). Overrides check.profile and [profiles] in ad.toml')
            [CompletionResult]::new('--rule', '--rule', [CompletionResultType]::ParameterName, 'Set a rule''s level, e.g. `--rule AD301=off` or `--rule AD733=error` (repeatable; overrides ad.toml). Levels: off, info, warning, error')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Use this configuration file instead of looking for ad.toml beside each script')
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'With --watch: how long a file must stay unchanged before it is re-checked')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--deny-warnings', '--deny-warnings', [CompletionResultType]::ParameterName, 'Exit 1 on warnings too')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Apply the available fixes in place, then report what remains')
            [CompletionResult]::new('--parity-only', '--parity-only', [CompletionResultType]::ParameterName, 'Only report diagnostics that agent-device 0.21.5 itself would reject the script for')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep checking: after the first report, re-check each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C')
            [CompletionResult]::new('--maestro', '--maestro', [CompletionResultType]::ParameterName, 'Read .yaml and .yml paths as Maestro flows, as `agent-device replay FLOW.yaml --maestro` routes them (folders are searched for *.yaml, *.yml and *.ad; .ad scripts are checked as usual): every refusal of agent-device''s Maestro reader, and what would fail when the flow is planned or run (docs/maestro.md). A .yaml named by `[maestro] paths` of ad.toml is a flow without it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;fmt' {
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Do not write; exit 1 and list the files that would change')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Do not write; print a unified diff of the changes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;commands' {
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Also list retired words, CLI aliases and client-only commands (which do not work in scripts)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;explain' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;parse' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output shape')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'The replay request''s `--platform`, which enters the digest')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'The replay request''s `--target`, which enters the digest')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--digest', '--digest', [CompletionResultType]::ParameterName, 'Also print the replay plan digest (what `run --from N --plan-digest` checks); for a `fragment-v1` file, also its pin digest (`fragmentDigest`, what an include''s `fragment-ref-v1` pins)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;lsp' {
            [CompletionResult]::new('--clientProcessId', '--clientProcessId', [CompletionResultType]::ParameterName, 'Accepted (and ignored) for clients that pass their process id')
            [CompletionResult]::new('--stdio', '--stdio', [CompletionResultType]::ParameterName, 'Accepted for editors that always pass it; stdio is the only transport')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;dap' {
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'Serve one client on 127.0.0.1:PORT instead of stdin/stdout (0: any free port, printed on stderr)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;run' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Resume at step N (1-based, action lines only); requires --plan-digest')
            [CompletionResult]::new('--plan-digest', '--plan-digest', [CompletionResultType]::ParameterName, 'The plan digest the resume is checked against (`ad parse --digest`, or the divergence report''s resume line); requires --from')
            [CompletionResult]::new('--save-script', '--save-script', [CompletionResultType]::ParameterName, 'Arm a repair transaction (docs/repair.md): every step is recorded with its evidence, a divergence holds the session live in ad''s session daemon for `ad session …` and `--from`, and `ad session close` commits PATH (default: <basename>.healed.ad beside the script; --overwrite lets it replace an existing file, never the script)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim')
            [CompletionResult]::new('--record-fixture', '--record-fixture', [CompletionResultType]::ParameterName, 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)')
            [CompletionResult]::new('--browser', '--browser', [CompletionResultType]::ParameterName, 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)')
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'With --backend agent-device: the device, by name (agent-device''s --device)')
            [CompletionResult]::new('--udid', '--udid', [CompletionResultType]::ParameterName, 'With --backend agent-device: the iOS device or simulator UDID')
            [CompletionResult]::new('--serial', '--serial', [CompletionResultType]::ParameterName, 'With --backend agent-device: the Android device serial')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)')
            [CompletionResult]::new('--lease-id', '--lease-id', [CompletionResultType]::ParameterName, 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)')
            [CompletionResult]::new('--lease-backend', '--lease-backend', [CompletionResultType]::ParameterName, 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)')
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'The simulator''s app model: a JSON file, or a model name found in an apps/ folder (default: the model whose "app" is the id the script opens, in apps/ beside the script or above it, or examples/apps)')
            [CompletionResult]::new('--artifacts-dir', '--artifacts-dir', [CompletionResultType]::ParameterName, 'Where run folders are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session name (AD_SESSION); a session a run leaves live is kept, for `--from`, in the per-user state folder ($AD_STATE_DIR, else $XDG_STATE_HOME/ad or ~/.local/state/ad), owner-only, secure fields masked')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Platform for the plan digest and AD_PLATFORM (default: the context header)')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Target for the plan digest and AD_TARGET (default: the context header)')
            [CompletionResult]::new('--level', '--level', [CompletionResultType]::ParameterName, 'Divergence report size')
            [CompletionResult]::new('--report-html', '--report-html', [CompletionResultType]::ParameterName, 'Write a static HTML report of the run into DIR (index.html and the script''s page, with its steps, screenshots and divergence report): see docs/run.md')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--keep-session', '--keep-session', [CompletionResultType]::ParameterName, 'Skip the script''s terminal `close` and leave the session live')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)')
            [CompletionResult]::new('--allow-local-urls', '--allow-local-urls', [CompletionResultType]::ParameterName, 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the structured result (JSON) on stdout instead of the summary')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Run even though `ad check` reports errors (only errors agent-device itself would accept: useful to see how a run fails)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No live progress on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No live progress on stderr')
            [CompletionResult]::new('--maestro', '--maestro', [CompletionResultType]::ParameterName, 'Run a Maestro flow (YAML) with agent-device''s Maestro engine semantics, as `agent-device replay FLOW.yaml --maestro` does (docs/maestro.md): selectors, waits, runFlow/repeat/retry and scripts on any backend, with the same journal and run folder')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'With --maestro: let a runScript''s http.post reach this machine (localhost only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;heal' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where --write commits the healed script')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where --write commits the healed script')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim')
            [CompletionResult]::new('--browser', '--browser', [CompletionResultType]::ParameterName, 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)')
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'With --backend agent-device: the device, by name (agent-device''s --device)')
            [CompletionResult]::new('--udid', '--udid', [CompletionResultType]::ParameterName, 'With --backend agent-device: the iOS device or simulator UDID')
            [CompletionResult]::new('--serial', '--serial', [CompletionResultType]::ParameterName, 'With --backend agent-device: the Android device serial')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)')
            [CompletionResult]::new('--lease-id', '--lease-id', [CompletionResultType]::ParameterName, 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)')
            [CompletionResult]::new('--lease-backend', '--lease-backend', [CompletionResultType]::ParameterName, 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)')
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'The simulator''s app model (as `ad run --app`)')
            [CompletionResult]::new('--artifacts-dir', '--artifacts-dir', [CompletionResultType]::ParameterName, 'Where the proving runs'' folders and the heal record are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session name the runs use (AD_SESSION)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Platform for AD_PLATFORM (default: the context header)')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'Target for AD_TARGET (default: the context header)')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--record-fixture', '--record-fixture', [CompletionResultType]::ParameterName, 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Commit the proven change as the healed script (default <basename>.healed.ad beside the script; never the script itself; an existing file only with --overwrite)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)')
            [CompletionResult]::new('--allow-local-urls', '--allow-local-urls', [CompletionResultType]::ParameterName, 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the heal record (JSON, docs/schemas/heal-record.schema.json) on stdout instead of the report, which goes to stderr')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'With --write: replace an existing file at the healed script''s path (never the script itself)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;test' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Set a script variable for every script (repeatable)')
            [CompletionResult]::new('--env', '--env', [CompletionResultType]::ParameterName, 'Set a script variable for every script (repeatable)')
            [CompletionResult]::new('--platform', '--platform', [CompletionResultType]::ParameterName, 'Keep only scripts whose `context platform=` matches (`apple` matches ios and macos)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Per-script timeout in device-clock milliseconds (overrides `context timeout=`)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries per failing script, 0..3 (overrides `context retries=`)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Scripts run in parallel, each in its own session')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Scripts run in parallel, each in its own session')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Run only this part of the suite: INDEX/COUNT, 1-based (`--shard 2/4`)')
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'The simulator''s app model (default: found by app id; see `ad run --help`)')
            [CompletionResult]::new('--artifacts-dir', '--artifacts-dir', [CompletionResultType]::ParameterName, 'Where run folders are written [default: `[run] artifacts-dir` of the ad.toml that applies to the first path, else ad-artifacts]')
            [CompletionResult]::new('--report-junit', '--report-junit', [CompletionResultType]::ParameterName, 'Write a JUnit XML report (one testcase per script)')
            [CompletionResult]::new('--report-json', '--report-json', [CompletionResultType]::ParameterName, 'Write a JSON report')
            [CompletionResult]::new('--heal-proposals', '--heal-proposals', [CompletionResultType]::ParameterName, 'For each script that failed, write DIR/<script>.diff: the change `ad heal` proposes and proves by a fresh run of the whole changed script (none when a step needs a human, whose repair-armed command is printed instead). Listed after the result line (docs/repair.md)')
            [CompletionResult]::new('--report-html', '--report-html', [CompletionResultType]::ParameterName, 'Write a static HTML report into DIR (index.html, a page per script, the screenshots and observations it shows): open DIR/index.html from a CI artifact download. See docs/run.md')
            [CompletionResult]::new('--debounce', '--debounce', [CompletionResultType]::ParameterName, 'With --watch: how long a file must stay unchanged before it is re-run')
            [CompletionResult]::new('--device', '--device', [CompletionResultType]::ParameterName, 'With --backend agent-device: the device, by name (agent-device''s --device)')
            [CompletionResult]::new('--udid', '--udid', [CompletionResultType]::ParameterName, 'With --backend agent-device: the iOS device or simulator UDID')
            [CompletionResult]::new('--serial', '--serial', [CompletionResultType]::ParameterName, 'With --backend agent-device: the Android device serial')
            [CompletionResult]::new('--tenant', '--tenant', [CompletionResultType]::ParameterName, 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)')
            [CompletionResult]::new('--lease-id', '--lease-id', [CompletionResultType]::ParameterName, 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)')
            [CompletionResult]::new('--lease-backend', '--lease-backend', [CompletionResultType]::ParameterName, 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)')
            [CompletionResult]::new('--backend', '--backend', [CompletionResultType]::ParameterName, 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim')
            [CompletionResult]::new('--record-fixture', '--record-fixture', [CompletionResultType]::ParameterName, 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)')
            [CompletionResult]::new('--browser', '--browser', [CompletionResultType]::ParameterName, 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--fail-fast', '--fail-fast', [CompletionResultType]::ParameterName, 'Stop starting scripts after the first failure (the rest are reported as not run)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep testing: after the first run, re-run each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C. Reports are rewritten each cycle with the scripts it ran')
            [CompletionResult]::new('--overwrite', '--overwrite', [CompletionResultType]::ParameterName, 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)')
            [CompletionResult]::new('--allow-local-urls', '--allow-local-urls', [CompletionResultType]::ParameterName, 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports')
            [CompletionResult]::new('--golden', '--golden', [CompletionResultType]::ParameterName, 'With --backend recorded:DIR: diff the run''s normalized transcript against DIR/golden.txt (saved by --record-fixture DIR); a difference fails the suite')
            [CompletionResult]::new('--update-golden', '--update-golden', [CompletionResultType]::ParameterName, 'With --backend recorded:DIR: rewrite DIR/golden.txt from this run')
            [CompletionResult]::new('--maestro', '--maestro', [CompletionResultType]::ParameterName, 'Run the Maestro flows (.yaml, .yml) under PATHS with agent-device''s Maestro engine semantics (as `agent-device test DIR --maestro`), one fresh backend each: see `ad run --maestro` and docs/maestro.md')
            [CompletionResult]::new('--allow-http', '--allow-http', [CompletionResultType]::ParameterName, 'With --maestro: let a runScript''s http.post reach this machine (localhost only)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the suite report (JSON) on stdout (with --maestro)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;doctor' {
            [CompletionResult]::new('--browser', '--browser', [CompletionResultType]::ParameterName, 'The browser the web backend would drive (default: $CHROME_PATH, else /usr/bin/chromium)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the rows as JSON')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;session' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;build' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where to write the plain script (`-` for stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where to write the plain script (`-` for stdout)')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the flow here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced, as agent-device''s `--out` does; the script itself is never overwritten. The written path is printed')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the flow here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced, as agent-device''s `--out` does; the script itself is never overwritten. The written path is printed')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--maestro', '--maestro', [CompletionResultType]::ParameterName, 'Export to Maestro YAML (the only format for now; required)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;import' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the script here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced; the flow itself is never overwritten. The written path is printed')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the script here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced; the flow itself is never overwritten. The written path is printed')
            [CompletionResult]::new('--app', '--app', [CompletionResultType]::ParameterName, 'The app model the fragments'' entry guards are recorded on (the simulated device runs the flow to each include); by default the flow''s app in the `apps/` folders above OUT.ad, as `ad run` finds it')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)')
            [CompletionResult]::new('--flatten', '--flatten', [CompletionResultType]::ParameterName, 'Inline the flows `runFlow` files name, in place (their own includes too), instead of writing each as a fragment beside OUT.ad')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;init' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;man' {
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'The folder the pages are written to (created when missing)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ad;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrite scripts in agent-device''s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review')
            [CompletionResult]::new('commands', 'commands', [CompletionResultType]::ParameterValue, 'List the commands scripts can use, with their arguments')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain a diagnostic code (what it means, an example and the fix), or list all codes')
            [CompletionResult]::new('parse', 'parse', [CompletionResultType]::ParameterValue, 'Print how a script parses: agent-device''s view (default) or ad''s syntax tree')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md')
            [CompletionResult]::new('dap', 'dap', [CompletionResultType]::ParameterValue, 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors')
            [CompletionResult]::new('heal', 'heal', [CompletionResultType]::ParameterValue, 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report''s suggestions are tried as the step''s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human')
            [CompletionResult]::new('test', 'test', [CompletionResultType]::ParameterValue, 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)')
            [CompletionResult]::new('session', 'session', [CompletionResultType]::ParameterValue, 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`')
            [CompletionResult]::new('build', 'build', [CompletionResultType]::ParameterValue, 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5''s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`')
            [CompletionResult]::new('import', 'import', [CompletionResultType]::ParameterValue, 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Start a project: ad.toml, an example script and app model, and the next commands to run')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ad;help;check' {
            break
        }
        'ad;help;fmt' {
            break
        }
        'ad;help;commands' {
            break
        }
        'ad;help;explain' {
            break
        }
        'ad;help;parse' {
            break
        }
        'ad;help;lsp' {
            break
        }
        'ad;help;dap' {
            break
        }
        'ad;help;run' {
            break
        }
        'ad;help;heal' {
            break
        }
        'ad;help;test' {
            break
        }
        'ad;help;doctor' {
            break
        }
        'ad;help;session' {
            break
        }
        'ad;help;build' {
            break
        }
        'ad;help;export' {
            break
        }
        'ad;help;import' {
            break
        }
        'ad;help;init' {
            break
        }
        'ad;help;completions' {
            break
        }
        'ad;help;man' {
            break
        }
        'ad;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
