"""Fakes and fixtures-as-data that several test modules share (a test module never imports another): fake bench
races and their clock, a small suite, and the Benchmark tab's frame reader and upload stand-in."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from app.bench.suite import SuitePrompt
from app.race.protocol import Round
from app.race.result import AssistedResult, RaceResult, SideResult
from app.race.why import explain_race
from tests.helpers import make_preset

PROMPTS = [SuitePrompt("s1", "Summarise: a b c", "summarisation", "tune"),
           SuitePrompt("s2", "Summarise: d e f", "summarisation", "test"),
           SuitePrompt("q1", "Why is the sky blue?", "qa", "tune")]


class FakeClock:
    """A clock that only moves when a fake race says so."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def fake_result(preset, assisted_seconds: float, rounds: list[Round], diverge_at: int | None = None,
                stopped: bool = False, errors: dict | None = None) -> RaceResult:
    """A sequential race of 8 tokens: the baseline takes 1 s, the assisted side `assisted_seconds`."""
    ids = list(range(10, 18))
    other = ids if diverge_at is None else ids[:diverge_at] + [99] * (8 - diverge_at)
    result = RaceResult(preset.id, preset.method, preset.target, preset.assistant, "sequential", False, "cpu",
                        SideResult("b", ids, 1.0, 0.2, [0.2 + 0.1 * i for i in range(8)]),
                        AssistedResult("a", other, assisted_seconds, 0.2, [0.2] * 8, rounds=rounds),
                        errors=errors or {}, stopped=stopped, knobs=preset.knobs())
    result.why = explain_race(result, result.knobs)
    return result


ROUNDS = [Round(3, 1, "x", 0.01, 0.12), Round(2, 2, "", 0.01, 0.11), Round(0, 0, "", 0.0, 0.1), Round(4, 0, "y", 0.01, 0.13)]


def lookup_preset(**fields):
    return make_preset("prompt-lookup", "tiny-target", prompt_lookup_num_tokens=3, **fields)



SUITE = "\n".join(json.dumps(x) for x in [
    {"id": "c1", "category": "copy", "split": "tune", "prompt": "The cat likes the dog and the dog likes the cat"},
    {"id": "c2", "category": "copy", "split": "test", "prompt": "One two three one two three one two"},
    {"id": "o1", "category": "open", "split": "test", "prompt": "Why is the sky blue"},
]) + "\n"


NAMES = ("status", "board", "heatmap", "positions", "scatter", "runs", "files", "run", "stop", "categories")


def named(tab, frame: dict) -> dict:
    by_id = {id(getattr(tab.ui, n)): n for n in NAMES}
    return {by_id[id(c)]: v for c, v in frame.items() if id(c) in by_id}


def upload(tmp_path: Path, text: str, name: str = "mine.jsonl") -> SimpleNamespace:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return SimpleNamespace(name=str(path), orig_name=name)


