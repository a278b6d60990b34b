"""The README's promises: its two commands, its CLI examples, the files it names."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

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
