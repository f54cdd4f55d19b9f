"""The README's two commands are what CI and users run."""

from __future__ import annotations

import re

from tests.helpers import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.+?)\n```", text)[:2]


def test_readme_starts_with_launch_and_test_commands():
    launch, test = readme_commands()
    assert launch.endswith("python app.py") and "setup.sh" in launch
    assert "pytest" in test and "setup.sh --dev" in test


def test_ci_runs_the_readme_test_command_verbatim():
    _, test = readme_commands()
    assert test in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_space_front_matter_pins_versions():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    front = text.split("---")[1]
    assert "sdk: gradio" in front and "app_file: app.py" in front and "sdk_version: 6.31.0" in front
    reqs = (ROOT / "requirements.txt").read_text()
    assert "gradio==6.31.0" in reqs and "transformers==5.24.0" in reqs and "torch==2.13.0" in reqs
