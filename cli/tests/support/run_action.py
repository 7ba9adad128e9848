"""Runs a composite GitHub Action's steps here, as a runner would, for cli/tests/github_action.rs.

    python3 run_action.py ACTION_DIR WORKSPACE '{"input": "value", ...}'

Supports what action.yml uses: `shell: bash` steps (run like GitHub's `bash --noprofile --norc
-eo pipefail`), step `env`, `if`, input defaults, `${{ inputs.NAME }}`,
`${{ steps.ID.outputs.NAME }}`, `inputs.NAME != ''`, and the GITHUB_OUTPUT, GITHUB_PATH,
GITHUB_ACTION_PATH and RUNNER_TEMP files and folders. Anything else is refused, so the test fails
instead of running something else than GitHub would. Exits with the first failing step's code.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

action_dir, workspace, given = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with open(os.path.join(action_dir, "action.yml"), encoding="utf-8") as f:
    action = yaml.safe_load(f)
assert action["runs"]["using"] == "composite", "a composite action"
inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
unknown = set(given) - set(inputs)
if unknown:
    sys.exit(f"run_action: unknown inputs {sorted(unknown)}")
inputs.update(given)

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
outputs = {}


def evaluate(expression):
    if m := re.fullmatch(r"inputs\.([\w-]+)", expression):
        return inputs[m.group(1)]
    if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression):
        return outputs.get(m.group(1), {}).get(m.group(2), "")
    if m := re.fullmatch(r"inputs\.([\w-]+) != ''", expression):
        return inputs[m.group(1)] != ""
    sys.exit(f"run_action: unsupported expression {expression!r}")


def substitute(text):
    return EXPRESSION.sub(lambda m: str(evaluate(m.group(1))), str(text))


runner_temp = tempfile.mkdtemp(prefix="runner-temp-")
path_file = os.path.join(runner_temp, "github_path")
open(path_file, "w").close()
for step in action["runs"]["steps"]:
    name = step.get("name", step.get("id", "step"))
    condition = step.get("if")
    if condition is not None:
        m = EXPRESSION.fullmatch(condition.strip())
        if not evaluate(m.group(1) if m else condition.strip()):
            print(f"run_action: skipped {name}", flush=True)
            continue
    if step.get("shell") != "bash" or "run" not in step:
        sys.exit(f"run_action: {name}: only `shell: bash` run steps are supported")
    output_file = os.path.join(runner_temp, "github_output")
    open(output_file, "w").close()
    with open(path_file, encoding="utf-8") as f:
        added = [line for line in f.read().splitlines() if line]
    env = dict(os.environ)
    env.update(
        GITHUB_ACTION_PATH=action_dir,
        GITHUB_WORKSPACE=workspace,
        GITHUB_OUTPUT=output_file,
        GITHUB_PATH=path_file,
        RUNNER_TEMP=runner_temp,
        PATH=os.pathsep.join(list(reversed(added)) + [os.environ["PATH"]]),
    )
    for key, value in (step.get("env") or {}).items():
        env[key] = substitute(value)
    script = substitute(step["run"])
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=workspace,
        env=env,
    )
    print(f"run_action: {name}: exit {done.returncode}", flush=True)
    with open(output_file, encoding="utf-8") as f:
        values = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
    if "id" in step:
        outputs[step["id"]] = values
    if done.returncode != 0:
        sys.exit(done.returncode)
