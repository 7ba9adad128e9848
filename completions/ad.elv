
use builtin;
use str;

set edit:completion:arg-completer[ad] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ad'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ad'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems'
            cand fmt 'Rewrite scripts in agent-device''s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review'
            cand commands 'List the commands scripts can use, with their arguments'
            cand explain 'Explain a diagnostic code (what it means, an example and the fix), or list all codes'
            cand parse 'Print how a script parses: agent-device''s view (default) or ad''s syntax tree'
            cand lsp 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md'
            cand dap 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md'
            cand run 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors'
            cand heal 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report''s suggestions are tried as the step''s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human'
            cand test 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed'
            cand doctor 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)'
            cand session 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`'
            cand build 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`'
            cand export 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5''s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`'
            cand import 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`'
            cand init 'Start a project: ad.toml, an example script and app model, and the next commands to run'
            cand completions 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)'
            cand man 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ad;check'= {
            cand --format 'Output format'
            cand --profile 'Check scripts as test flows or as handoff scripts (default: inferred; a terminal `close` or no recorder evidence makes a flow, a close-less script with target-v1 evidence a handoff). Overrides check.profile and [profiles] in ad.toml'
            cand --rule 'Set a rule''s level, e.g. `--rule AD301=off` or `--rule AD733=error` (repeatable; overrides ad.toml). Levels: off, info, warning, error'
            cand --config 'Use this configuration file instead of looking for ad.toml beside each script'
            cand --debounce 'With --watch: how long a file must stay unchanged before it is re-checked'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --deny-warnings 'Exit 1 on warnings too'
            cand --fix 'Apply the available fixes in place, then report what remains'
            cand --parity-only 'Only report diagnostics that agent-device 0.21.5 itself would reject the script for'
            cand --watch 'Keep checking: after the first report, re-check each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C'
            cand --maestro 'Read .yaml and .yml paths as Maestro flows, as `agent-device replay FLOW.yaml --maestro` routes them (folders are searched for *.yaml, *.yml and *.ad; .ad scripts are checked as usual): every refusal of agent-device''s Maestro reader, and what would fail when the flow is planned or run (docs/maestro.md). A .yaml named by `[maestro] paths` of ad.toml is a flow without it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;fmt'= {
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --check 'Do not write; exit 1 and list the files that would change'
            cand --diff 'Do not write; print a unified diff of the changes'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;commands'= {
            cand --all 'Also list retired words, CLI aliases and client-only commands (which do not work in scripts)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;explain'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;parse'= {
            cand --format 'Output shape'
            cand --platform 'The replay request''s `--platform`, which enters the digest'
            cand --target 'The replay request''s `--target`, which enters the digest'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --digest 'Also print the replay plan digest (what `run --from N --plan-digest` checks); for a `fragment-v1` file, also its pin digest (`fragmentDigest`, what an include''s `fragment-ref-v1` pins)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;lsp'= {
            cand --clientProcessId 'Accepted (and ignored) for clients that pass their process id'
            cand --stdio 'Accepted for editors that always pass it; stdio is the only transport'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;dap'= {
            cand --port 'Serve one client on 127.0.0.1:PORT instead of stdin/stdout (0: any free port, printed on stderr)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;run'= {
            cand -e 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives'
            cand --env 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives'
            cand --from 'Resume at step N (1-based, action lines only); requires --plan-digest'
            cand --plan-digest 'The plan digest the resume is checked against (`ad parse --digest`, or the divergence report''s resume line); requires --from'
            cand --save-script 'Arm a repair transaction (docs/repair.md): every step is recorded with its evidence, a divergence holds the session live in ad''s session daemon for `ad session …` and `--from`, and `ad session close` commits PATH (default: <basename>.healed.ad beside the script; --overwrite lets it replace an existing file, never the script)'
            cand --backend 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim'
            cand --record-fixture 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)'
            cand --browser 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)'
            cand --device 'With --backend agent-device: the device, by name (agent-device''s --device)'
            cand --udid 'With --backend agent-device: the iOS device or simulator UDID'
            cand --serial 'With --backend agent-device: the Android device serial'
            cand --tenant 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)'
            cand --run-id 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)'
            cand --lease-id 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)'
            cand --lease-backend 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)'
            cand --app 'The simulator''s app model: a JSON file, or a model name found in an apps/ folder (default: the model whose "app" is the id the script opens, in apps/ beside the script or above it, or examples/apps)'
            cand --artifacts-dir 'Where run folders are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]'
            cand --session 'Session name (AD_SESSION); a session a run leaves live is kept, for `--from`, in the per-user state folder ($AD_STATE_DIR, else $XDG_STATE_HOME/ad or ~/.local/state/ad), owner-only, secure fields masked'
            cand --platform 'Platform for the plan digest and AD_PLATFORM (default: the context header)'
            cand --target 'Target for the plan digest and AD_TARGET (default: the context header)'
            cand --level 'Divergence report size'
            cand --report-html 'Write a static HTML report of the run into DIR (index.html and the script''s page, with its steps, screenshots and divergence report): see docs/run.md'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --keep-session 'Skip the script''s terminal `close` and leave the session live'
            cand --overwrite 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)'
            cand --offline 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)'
            cand --allow-local-urls 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports'
            cand --json 'Print the structured result (JSON) on stdout instead of the summary'
            cand --force 'Run even though `ad check` reports errors (only errors agent-device itself would accept: useful to see how a run fails)'
            cand -q 'No live progress on stderr'
            cand --quiet 'No live progress on stderr'
            cand --maestro 'Run a Maestro flow (YAML) with agent-device''s Maestro engine semantics, as `agent-device replay FLOW.yaml --maestro` does (docs/maestro.md): selectors, waits, runFlow/repeat/retry and scripts on any backend, with the same journal and run folder'
            cand --allow-http 'With --maestro: let a runScript''s http.post reach this machine (localhost only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;heal'= {
            cand -e 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown'
            cand --env 'Set a script variable (repeatable); overrides AD_VAR_* and `env` directives. Never shown'
            cand -o 'Where --write commits the healed script'
            cand --output 'Where --write commits the healed script'
            cand --backend 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim'
            cand --browser 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)'
            cand --device 'With --backend agent-device: the device, by name (agent-device''s --device)'
            cand --udid 'With --backend agent-device: the iOS device or simulator UDID'
            cand --serial 'With --backend agent-device: the Android device serial'
            cand --tenant 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)'
            cand --run-id 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)'
            cand --lease-id 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)'
            cand --lease-backend 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)'
            cand --app 'The simulator''s app model (as `ad run --app`)'
            cand --artifacts-dir 'Where the proving runs'' folders and the heal record are written [default: `[run] artifacts-dir` of ad.toml, else ad-artifacts]'
            cand --session 'Session name the runs use (AD_SESSION)'
            cand --platform 'Platform for AD_PLATFORM (default: the context header)'
            cand --target 'Target for AD_TARGET (default: the context header)'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --record-fixture 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)'
            cand --write 'Commit the proven change as the healed script (default <basename>.healed.ad beside the script; never the script itself; an existing file only with --overwrite)'
            cand --offline 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)'
            cand --allow-local-urls 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports'
            cand --json 'Print the heal record (JSON, docs/schemas/heal-record.schema.json) on stdout instead of the report, which goes to stderr'
            cand --overwrite 'With --write: replace an existing file at the healed script''s path (never the script itself)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;test'= {
            cand -e 'Set a script variable for every script (repeatable)'
            cand --env 'Set a script variable for every script (repeatable)'
            cand --platform 'Keep only scripts whose `context platform=` matches (`apple` matches ios and macos)'
            cand --timeout 'Per-script timeout in device-clock milliseconds (overrides `context timeout=`)'
            cand --retries 'Retries per failing script, 0..3 (overrides `context retries=`)'
            cand -j 'Scripts run in parallel, each in its own session'
            cand --jobs 'Scripts run in parallel, each in its own session'
            cand --shard 'Run only this part of the suite: INDEX/COUNT, 1-based (`--shard 2/4`)'
            cand --app 'The simulator''s app model (default: found by app id; see `ad run --help`)'
            cand --artifacts-dir 'Where run folders are written [default: `[run] artifacts-dir` of the ad.toml that applies to the first path, else ad-artifacts]'
            cand --report-junit 'Write a JUnit XML report (one testcase per script)'
            cand --report-json 'Write a JSON report'
            cand --heal-proposals 'For each script that failed, write DIR/<script>.diff: the change `ad heal` proposes and proves by a fresh run of the whole changed script (none when a step needs a human, whose repair-armed command is printed instead). Listed after the result line (docs/repair.md)'
            cand --report-html 'Write a static HTML report into DIR (index.html, a page per script, the screenshots and observations it shows): open DIR/index.html from a CI artifact download. See docs/run.md'
            cand --debounce 'With --watch: how long a file must stay unchanged before it is re-run'
            cand --device 'With --backend agent-device: the device, by name (agent-device''s --device)'
            cand --udid 'With --backend agent-device: the iOS device or simulator UDID'
            cand --serial 'With --backend agent-device: the Android device serial'
            cand --tenant 'With --backend agent-device: the remote farm tenant; requests become tenant-isolated and run under a lease (env AGENT_DEVICE_TENANT)'
            cand --run-id 'With --tenant: the run the lease belongs to (default: one per ad process; env AGENT_DEVICE_RUN_ID)'
            cand --lease-id 'With --tenant: a lease you hold (ad neither renews nor releases it), else ad allocates, renews and releases one (env AGENT_DEVICE_LEASE_ID)'
            cand --lease-backend 'With --tenant: agent-device''s lease backend, e.g. ios-simulator (env AGENT_DEVICE_LEASE_BACKEND; default: the daemon''s)'
            cand --backend 'Device backend: sim (the embedded simulated device), web (headless Chromium) or agent-device (a real device through the agent-device daemon: $AGENT_DEVICE_STATE_DIR''s daemon, a remote one at $AGENT_DEVICE_DAEMON_BASE_URL, else one `ad` starts and stops). recorded:DIR replays a fixture written by --record-fixture DIR, offline (docs/recorded.md). Default: web for `context platform=web` scripts, else `[run] backend` of ad.toml, else agent-device for a `context platform=` linux, macos, ios or android script the sim has no app model for (when this machine can drive that platform: docs/run.md), else sim'
            cand --record-fixture 'Record the run''s backend calls, observations and device clock as a fixture in DIR, for `--backend recorded:DIR` (`ad test`: one subfolder per script)'
            cand --browser 'The browser the web backend drives (default: $CHROME_PATH, else /usr/bin/chromium)'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --fail-fast 'Stop starting scripts after the first failure (the rest are reported as not run)'
            cand --watch 'Keep testing: after the first run, re-run each script you save (and the compositions that include it), one summary line per cycle, until Ctrl-C. Reports are rewritten each cycle with the scripts it ran'
            cand --overwrite 'Let --record-fixture and --report-html write into a folder that holds files ad did not write: those it writes over are replaced, nothing else is removed (without it such a folder is refused before anything runs; links inside it are refused either way)'
            cand --offline 'Web backend: every host name but 127.0.0.1 fails to resolve, so nothing leaves the machine (the browser''s own background traffic is always off)'
            cand --allow-local-urls 'Web backend: let the browser show local files outside the script''s folder (`file:`) and its own pages (`view-source:`, `chrome:`, `about:version`, …). Without it they are refused, since what a page shows is copied into the run''s observations and reports'
            cand --golden 'With --backend recorded:DIR: diff the run''s normalized transcript against DIR/golden.txt (saved by --record-fixture DIR); a difference fails the suite'
            cand --update-golden 'With --backend recorded:DIR: rewrite DIR/golden.txt from this run'
            cand --maestro 'Run the Maestro flows (.yaml, .yml) under PATHS with agent-device''s Maestro engine semantics (as `agent-device test DIR --maestro`), one fresh backend each: see `ad run --maestro` and docs/maestro.md'
            cand --allow-http 'With --maestro: let a runScript''s http.post reach this machine (localhost only)'
            cand --json 'Print the suite report (JSON) on stdout (with --maestro)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;doctor'= {
            cand --browser 'The browser the web backend would drive (default: $CHROME_PATH, else /usr/bin/chromium)'
            cand --json 'Print the rows as JSON'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;session'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;build'= {
            cand -o 'Where to write the plain script (`-` for stdout)'
            cand --output 'Where to write the plain script (`-` for stdout)'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;export'= {
            cand -o 'Write the flow here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced, as agent-device''s `--out` does; the script itself is never overwritten. The written path is printed'
            cand --output 'Write the flow here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced, as agent-device''s `--out` does; the script itself is never overwritten. The written path is printed'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --maestro 'Export to Maestro YAML (the only format for now; required)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;import'= {
            cand -o 'Write the script here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced; the flow itself is never overwritten. The written path is printed'
            cand --output 'Write the script here instead of stdout (`-` for stdout). Missing folders are created and an existing file is replaced; the flow itself is never overwritten. The written path is printed'
            cand --app 'The app model the fragments'' entry guards are recorded on (the simulated device runs the flow to each include); by default the flow''s app in the `apps/` folders above OUT.ad, as `ad run` finds it'
            cand --max-file-size 'Read at most this many bytes from one script; a larger file is refused with AD006 (default: agent-device''s own limit, 2097152; or `[input] max-file-size` in ad.toml; at most 4294967295)'
            cand --flatten 'Inline the flows `runFlow` files name, in place (their own includes too), instead of writing each as a fragment beside OUT.ad'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;init'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;completions'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;man'= {
            cand --out 'The folder the pages are written to (created when missing)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ad;help'= {
            cand check 'Report every problem in scripts: parity errors agent-device would reject, and mistakes it would only find on a device. Exit 0 when clean, 1 on errors, 2 on usage or I/O problems'
            cand fmt 'Rewrite scripts in agent-device''s own canonical spelling, keeping every comment, every line and exactly what each step does. `--check` for CI, `--diff` to review'
            cand commands 'List the commands scripts can use, with their arguments'
            cand explain 'Explain a diagnostic code (what it means, an example and the fix), or list all codes'
            cand parse 'Print how a script parses: agent-device''s view (default) or ad''s syntax tree'
            cand lsp 'Run the language server on stdin/stdout (diagnostics, completion, hover, formatting, …) for editors: see docs/editors.md'
            cand dap 'Run the debug adapter (Debug Adapter Protocol) on stdin/stdout, or on 127.0.0.1 with --port, for editors: breakpoints on steps, stepping, the screen and variables at each stop, script commands in the debug console. See docs/debugging.md'
            cand run 'Run a script on a device backend (the embedded simulated device by default; headless Chromium, a real device through agent-device, or a recorded fixture with `--backend`): live progress, a divergence report when a step fails, a crash-safe run journal. Exit 0 passed, 1 failed, 2 usage/static errors'
            cand heal 'Propose a repair of a script the app changed under, proven before you review it: at each divergence, the report''s suggestions are tried as the step''s selector (its evidence captured again) until a fresh run of the whole changed script passes. Prints the diff; `--write` commits <basename>.healed.ad. Exit 0 healed or passed, 1 a step needs a human'
            cand test 'Run a suite of scripts: static check first, platform filter, shards, retries (flaky passes reported), parallel jobs, JUnit/JSON reports. Exit 0 all passed, 1 any failed'
            cand doctor 'Each device backend, whether it is usable here, and what is missing otherwise (`--json` for tools)'
            cand session 'Live sessions held by a local daemon: run script commands one at a time, author a journey (`open --save-script`, actions, a landmark `wait`) and publish it with `save-script`; `list`, `close`, `replay FILE`. `--session NAME`, `--json`'
            cand build 'Flatten a composition (`composition-v1` with `include`d fragments) into one plain script agent-device 0.21.5 runs: `ad build flow.ad -o dist/flow.ad`'
            cand export 'Write a script as a Maestro flow, byte for byte what agent-device 0.21.5''s `replay export` writes: `ad export --maestro flow.ad -o flow.yaml`'
            cand import 'Turn a Maestro flow agent-device 0.21.5 accepts into a `.ad` script with the same behaviour: `ad import e2e/login.yaml -o flows/login.ad`'
            cand init 'Start a project: ad.toml, an example script and app model, and the next commands to run'
            cand completions 'Print a shell completion script (bash, zsh, fish, PowerShell, Elvish)'
            cand man 'Write the man pages (one per command) into a folder; docs/man/ holds them checked in'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ad;help;check'= {
        }
        &'ad;help;fmt'= {
        }
        &'ad;help;commands'= {
        }
        &'ad;help;explain'= {
        }
        &'ad;help;parse'= {
        }
        &'ad;help;lsp'= {
        }
        &'ad;help;dap'= {
        }
        &'ad;help;run'= {
        }
        &'ad;help;heal'= {
        }
        &'ad;help;test'= {
        }
        &'ad;help;doctor'= {
        }
        &'ad;help;session'= {
        }
        &'ad;help;build'= {
        }
        &'ad;help;export'= {
        }
        &'ad;help;import'= {
        }
        &'ad;help;init'= {
        }
        &'ad;help;completions'= {
        }
        &'ad;help;man'= {
        }
        &'ad;help;help'= {
        }
    ]
    $completions[$command]
}
