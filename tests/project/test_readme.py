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


def preload_from_hub() -> dict[str, str]:
    """README front matter's ``preload_from_hub`` entries (``repo [files] [revision]``): repo id -> the whole entry."""
    import yaml

    front = yaml.safe_load((ROOT / "README.md").read_text(encoding="utf-8").split("---")[1])
    return {entry.split()[0]: entry for entry in front.get("preload_from_hub") or []}


def test_the_space_preloads_the_models_of_its_default_preset():
    """A Space downloads what preload_from_hub lists at build time, so its default preset's first race (the hub ids
    of its package models, app/core/sources.HUB_EQUIVALENTS) never waits for a download; nothing else is preloaded."""
    from app.core.presets import get_preset, load_presets
    from app.core.sources import space_hub_id
    from app.ui.config import DEFAULT_PRESET, UIConfig

    assert UIConfig().preset == DEFAULT_PRESET
    preset = get_preset(DEFAULT_PRESET)
    pins = {preset.target: preset.revision, preset.tokenizer: preset.revision,
            preset.assistant: preset.assistant_revision, preset.assistant_tokenizer: preset.assistant_revision}
    preloaded = preload_from_hub()
    for spec, revision in pins.items():
        repo = space_hub_id(spec)
        if repo is not None:
            assert repo in preloaded, f"README preload_from_hub lacks {repo} ({DEFAULT_PRESET}'s {spec})"
            assert revision is None or preloaded[repo].split()[-1] == revision, preloaded[repo]
    used = {space_hub_id(getattr(p, f)) for p in load_presets().values()
            for f in ("target", "assistant", "tokenizer", "assistant_tokenizer")}
    assert set(preloaded) <= used, set(preloaded) - used
