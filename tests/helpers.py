"""Plain helpers the tests (and benchmarks/gpu_check.py) share: the repository root, the command line's limits,
a validated preset for tests, and a block of the built page by its elem_id. No pytest imports, so a script can
use them too; the fixtures are in tests/conftest.py."""

from __future__ import annotations

from pathlib import Path

from app.core.loader import LoadOptions
from app.core.presets import Preset
from app.core.requests import Limits

ROOT = Path(__file__).resolve().parents[1]
#: The command line's limits (local folders allowed: the tiny test models live in temporary folders).
OPERATOR = Limits.operator()
#: Load options that accept the tiny models' folders.
LOCAL = LoadOptions(allow_local=True)


def make_preset(method: str, target: str, assistant: str | None = None, **fields) -> Preset:
    """A validated preset for tests (greedy, 24 new tokens unless overridden)."""
    base = Preset(id=f"test-{method}", method=method, title="test", description="test", target=target,
                  assistant=assistant, max_new_tokens=24)
    return base.with_overrides(fields)


def english(value):
    """A component's text as an English visitor reads it: a translation key (gradio's I18nData, app/ui/language.py
    ``label``) resolved in the English table; any other value as it is."""
    from app.core.words import t

    key = getattr(value, "key", None)
    return t(key) if isinstance(key, str) and type(value).__name__ == "I18nData" else value


def by_elem_id(demo, elem_id: str):
    """The one block of `demo` (a gr.Blocks or an App) with this elem_id."""
    demo = getattr(demo, "demo", demo)
    hits = [b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id]
    assert len(hits) == 1, f"expected one block with elem_id {elem_id!r}, found {len(hits)}"
    return hits[0]


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``python -m app ARGV`` run in-process; `capsys` is pytest's fixture."""
    from app.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean_error(code: int, err: str, *needles: str) -> None:
    """The command failed with one line on stderr, ``error: ...``, holding every needle."""
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], lines[0]


def race_controls(preset_id: str, prompt: str, max_new_tokens: int = 8, **changes) -> list:
    """The Race tab's control values for `preset_id` as the page shows them once it is chosen (its models, chat
    template and knobs; greedy), with `changes` (by control name) on top, in CONTROL_NAMES order: what the Race,
    Measure, Tune and sampling-check events receive after the session and toggle inputs."""
    from app.ui.race.controls import CONTROL_NAMES, preset_state

    state = preset_state(preset_id, None, 4096)
    values = {"preset": preset_id, "prompt": prompt, "target": state["target"], "assistant": state["assistant"],
              "chat_template": state["chat_template"], "max_new_tokens": max_new_tokens, "decoding": "greedy",
              "temperature": 1.0, "top_p": 1.0, "seed": None, **{k: v["value"] for k, v in state["knobs"].items()}}
    values.update(changes)
    return [values[n] for n in CONTROL_NAMES]


def server_events(app, elem_id: str, event: str = "click") -> list:
    """The events that `event` on the block with this elem_id runs on the server (listeners that only run in the
    browser, with no Python function, are left out)."""
    block = by_elem_id(app, elem_id)
    demo = getattr(app, "demo", app)
    return [fn for fn in demo.fns.values() if (block._id, event) in fn.targets and fn.fn is not None]
