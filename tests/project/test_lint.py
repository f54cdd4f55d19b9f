"""The player's JavaScript and every stylesheet are checked as what they are: ESLint on app/render/*.js and Stylelint
on app/render/css/*.css, both pinned in tests/axe/package-lock.json and installed by ``scripts/setup.sh --dev``
(skipped without them, a failure in CI, as the browser tests are)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.helpers import ROOT

TOOLS = ROOT / "tests" / "axe"
ESLINT = TOOLS / "node_modules" / "eslint" / "bin" / "eslint.js"
STYLELINT = TOOLS / "node_modules" / "stylelint" / "bin" / "stylelint.mjs"


def _require(tool) -> str:
    node = shutil.which("node")
    why = None if node and tool.exists() else f"no node or no {tool.name} (bash scripts/setup.sh --dev installs them)"
    if why:
        if os.environ.get("CI"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return node


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_player_passes_eslint():
    node = _require(ESLINT)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.js"))
    assert files == ["app/render/player.js"]  # the one player; any other script belongs with it
    done = _run(node, str(ESLINT), "--config", str(TOOLS / "eslint.config.mjs"), "--max-warnings", "0", *files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_stylesheet_passes_stylelint():
    node = _require(STYLELINT)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.css"))
    assert len(files) >= 6 and all(f.startswith("app/render/css/") for f in files)  # drawing in one place
    done = _run(node, str(STYLELINT), "--config", str(TOOLS / "stylelint.config.mjs"), *files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_stylesheet_or_script_hides_in_python():
    """CSS and JavaScript live in their own files (app/render/css, app/render/player.js), not in Python strings."""
    offenders = []
    for path in (ROOT / "app").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if text.count("{ display:") + text.count("; border-radius:") + text.count("function (") > 2:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
