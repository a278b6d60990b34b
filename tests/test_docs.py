"""The README's promises: its two commands, its CLI examples, the files it names."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from harness import ROOT

README = (ROOT / "README.md").read_text()


def test_readme_gives_the_two_commands_and_ci_runs_the_test_one() -> None:
    """README starts with `bash dev.sh serve` and `bash dev.sh test`; .ci/run runs the latter."""
    block = re.search(r"```sh\n(.*?)```", README, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["bash dev.sh serve", "bash dev.sh test"]
    assert "exec bash dev.sh test" in (ROOT / ".ci" / "run").read_text()
    dev = (ROOT / "dev.sh").read_text()
    assert "serve)" in dev and "test)" in dev and "apt-get install" in dev and "npm ci" in dev


def test_the_readme_says_what_each_set_up_installs_how_long_it_takes_and_how_to_stop() -> None:
    """Under the two commands: the extra each one installs (the ones dev.sh installs, see
    below), how long the first set-up takes, and how the server stops."""
    text = " ".join(README.split("## How it works")[0].split())
    serve = re.search(r"The first `bash dev.sh serve` sets up for about \d+ seconds.*?\.\[(\w+)\]", text)
    test = re.search(r"The first `bash dev.sh test` .*?\.\[(\w+)\]\"`[^,]*, about \w+ minutes more", text)
    assert serve is not None and test is not None
    assert (serve.group(1), test.group(1)) == ("site", "dev")
    assert "Press Ctrl+C in that terminal to stop the server" in text
    assert "(Ctrl+C to stop)" in (ROOT / "build.py").read_text()  # and the server's own line says so


def test_readme_command_line_examples_run() -> None:
    """Each `python -m engine …` example in the README exits 0."""
    examples = re.findall(r"^(python -m engine[^\n#]*)", README, re.M)
    assert len(examples) >= 3
    for example in examples:
        args = shlex.split(example)[3:]
        done = subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, (example, done.stderr)


def test_files_the_readme_names_exist() -> None:
    """Benchmarks, workflows and docs the README points to are in the repository."""
    for path in re.findall(
        r"\b((?:bench|fixtures|site|tools|\.github/workflows)/[\w./-]+\.(?:py|md|json|yml|js|j2|css))", README
    ):
        assert (ROOT / path).exists() or (ROOT / ".github" / "workflows" / path.split("/")[-1]).exists(), path
    for name in ("engine_scale.py", "page_load.py", "first_visit.py", "page_scale.py"):
        assert f"bench/{name}" in README and (ROOT / "bench" / name).exists()


def test_the_readme_lists_every_scorer_as_the_scorer_table_does() -> None:
    """The README's scorer table and the vectors' size are what engine/scorers.py and the file generate."""
    from sitebuild.readme import scorer_block

    assert scorer_block() in README, "run `python build.py --write-tables` after editing engine/scorers.py"
    assert "MB gzipped" not in README.split("## Start-up performance")[0], "one size for the vectors: the generated one"


def test_the_readme_counts_the_default_store_s_guided_steps_and_their_score() -> None:
    """'What counts' names how many guided steps the score divides by, and the example's score."""
    from harness.fixtures import STORE

    steps = sum(len(g["steps"]) for g in STORE["guides"])
    text = " ".join(README.split())
    assert f"every step of every guided experiment, {steps} in the default store" in text
    example = re.search(r"every prediction right scores (\d+) of (\d+), (\d+),", text)
    assert example is not None
    right, total, score = map(int, example.groups())
    assert total == steps and score == int(100 * right / steps + 0.5)


def test_the_readme_s_flag_error_is_what_the_command_line_says() -> None:
    """The example of a refused flag value is the command line's own line for it."""
    quoted = re.search(r"value as typed \(`(--[\w-]+): (.*?), not (\S+)`\)", " ".join(README.split()))
    assert quoted is not None
    flag, rule, value = quoted.groups()
    done = subprocess.run([sys.executable, "-m", "engine", flag, value], cwd=ROOT, capture_output=True, text=True)
    assert done.stderr == f"python -m engine: error: {flag}: {rule}, not {value}\n"


# Stand-ins for python3 (its venv, whose python, ruff and mypy only log), npm and node: each
# writes its command line to calls.log, so a test sees what dev.sh ran, in a second.
FAKE_PYTHON3 = """#!/bin/sh
echo "python3 $*" >> "$LOG"
mkdir -p .venv/bin
for tool in python ruff mypy; do
  printf '#!/bin/sh\\necho "%s $*" >> "$LOG"\\n' "$tool" > ".venv/bin/$tool"
  chmod +x ".venv/bin/$tool"
done
"""
FAKE_NPM = """#!/bin/sh
echo "npm $*" >> "$LOG"
rm -rf node_modules && mkdir -p node_modules/.bin
printf '#!/bin/sh\\necho "tsc $*" >> "$LOG"\\n' > node_modules/.bin/tsc && chmod +x node_modules/.bin/tsc
"""
FAKE_NODE = """#!/bin/sh
echo "node $*" >> "$LOG"
"""


def dev_sh(checkout: Path, *args: str) -> list[str]:
    """Run dev.sh in a copy of the repository's set-up files with the stand-ins first on PATH;
    the commands it ran, in order."""
    log = checkout / "calls.log"
    log.write_text("")
    env = os.environ | {
        "PATH": f"{checkout / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "LOG": str(log),
        "CHROMIUM_PATH": "/bin/true",
    }
    done = subprocess.run(["bash", "dev.sh", *args], cwd=checkout, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return [line for line in log.read_text().splitlines() if not line.startswith(("node --check", "ruff", "mypy"))]


def test_dev_sh_installs_what_each_command_needs_and_only_when_its_files_changed(tmp_path: Path) -> None:
    """serve installs the site extra, test the dev extra (which holds site's packages); pip
    runs again only when pyproject.toml changed, npm ci only when package-lock.json did, so
    serving again starts the server at once."""
    for name in ("dev.sh", "pyproject.toml", "package-lock.json"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "bin").mkdir()
    for name, script in (("python3", FAKE_PYTHON3), ("npm", FAKE_NPM), ("node", FAKE_NODE)):
        (tmp_path / "bin" / name).write_text(script)
        (tmp_path / "bin" / name).chmod(0o755)
    pip = "python -m pip install --quiet --disable-pip-version-check -e"
    # Serving installs the npm dependencies alone; testing, the devDependencies too.
    npm_site = "npm ci --omit=dev --no-audit --no-fund --loglevel=error"
    npm = "npm ci --no-audit --no-fund --loglevel=error"
    serve = "python build.py --serve --port 8000"
    assert dev_sh(tmp_path, "serve") == ["python3 -m venv .venv", f"{pip} .[site]", npm_site, serve]
    assert dev_sh(tmp_path, "serve") == [serve]
    with (tmp_path / "package-lock.json").open("a") as lock:
        lock.write("\n")
    assert dev_sh(tmp_path, "serve") == [npm_site, serve]
    fast = dev_sh(tmp_path, "test", "fast")
    assert fast[:2] == [f"{pip} .[dev]", npm] and fast[-1].startswith(
        "python -m pytest -q tests --ignore=tests/browser"
    )
    assert dev_sh(tmp_path, "test", "fast")[0].startswith("tsc"), "nothing installed again"
    # The dev extra and npm's devDependencies hold everything serving needs: serving after testing installs nothing.
    assert dev_sh(tmp_path, "serve") == [serve]
    with (tmp_path / "pyproject.toml").open("a") as project:
        project.write("\n")
    assert dev_sh(tmp_path, "serve") == [f"{pip} .[site]", serve]
    shutil.rmtree(tmp_path / "node_modules")
    assert dev_sh(tmp_path, "serve") == [npm_site, serve]


def requirement_name(requirement: str) -> str:
    return canonicalize_name(Requirement(requirement).name)


def installed_with(names: set[str]) -> set[str]:
    """These distributions and what they require on this Python (not their optional extras)."""
    found: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            requirements = map(Requirement, importlib.metadata.requires(name) or [])
            todo += [
                canonicalize_name(r.name) for r in requirements if not r.marker or r.marker.evaluate({"extra": ""})
            ]
    return found


def test_the_site_extra_is_what_building_needs_and_the_dev_extra_holds_it() -> None:
    """Serving installs only the site extra: it brings every package build.py and sitebuild/
    import, and no test tool; the dev extra holds it and adds the test tools."""
    imported: set[str] = set()
    for path in (ROOT / "build.py", *(ROOT / "sitebuild").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                imported.add(node.module.split(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"engine", "sitebuild", "build", "harness"}
    distributions = importlib.metadata.packages_distributions()
    needed = {requirement_name(distributions[module][0]) for module in third_party}
    assert {"jinja2", "hatchling", "zstandard"} <= needed  # the scan finds the build's packages
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    site = {requirement_name(r) for r in extras["site"]}
    assert needed <= installed_with(site)
    assert not {"pytest", "playwright", "ruff", "mypy"} & installed_with(site)
    assert f"{project['project']['name']}[site]" in extras["dev"]
