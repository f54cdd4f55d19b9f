"""Benchmark results: the environment, a pandas DataFrame, the files a run writes (``results.json``, ``results.csv``
with list columns as JSON text) and reading them back; docs/DESIGN.md §4.4 describes the files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.cells import csv_cell
from ..core.requests import read_text_file
from ..core.words import message_data, message_from, msg
from .regret import regret_report
from .stats import ROW_KEYS, cells, overall

FORMAT = "arena-bench/1"
#: The largest results.json --compare reads (bytes).
MAX_RESULTS_BYTES = 50_000_000
LIST_COLUMNS = ("acceptance_by_position", "drafted_by_position", "accepted_by_position", "accepted_histogram")


@dataclass
class BenchResult:
    """Rows of finished races with the settings and environment they were measured in."""

    rows: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    stopped: bool = False

    @property
    def cells(self) -> list[dict[str, Any]]:
        return cells(self.rows)

    @property
    def overall(self) -> list[dict[str, Any]]:
        return overall(self.rows)

    @property
    def regret(self) -> dict[str, list] | None:
        """The regret report of a regret sweep (app.bench.regret), else None."""
        layouts = (self.settings.get("regret") or {}).get("presets")
        return regret_report(self.rows, layouts) if layouts else None

    def frame(self) -> Any:
        """The runs as a pandas DataFrame (one row per race, columns ROW_KEYS)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(ROW_KEYS))

    def to_dict(self) -> dict[str, Any]:
        regret = self.regret
        return {"format": FORMAT, "environment": self.environment, "settings": self.settings, "stopped": self.stopped,
                "cells": self.cells, "overall": self.overall, **({"regret": regret} if regret else {}),
                "runs": [_with_message(row) for row in self.rows]}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> "BenchResult":
        """Read a results.json object back; ArenaError naming the first problem."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ArenaError(msg("{where}: not a benchmark results file (no \"format\": \"arena-bench/1\")", where=where))
        runs = data.get("runs")
        if not isinstance(runs, list):
            raise ArenaError(msg("{where}: 'runs' must be a list", where=where))
        for i, run in enumerate(runs):
            missing = [k for k in ("preset", "category", "speedup", "identical") if not isinstance(run, dict) or k not in run]
            if missing:
                raise ArenaError(msg("{where}: runs[{i}] lacks {missing}", where=where, i=i, missing=', '.join(missing)))
        _check_regret(data.get("settings"), where)
        rows = [{k: (run.get(k) or []) if k in LIST_COLUMNS else run.get(k) for k in ROW_KEYS} for run in runs]
        for row, run in zip(rows, runs):
            row["verdict_reason"] = message_from(row["verdict_reason"], run.get("verdict_message"))
        return cls(rows, data.get("settings") or {}, data.get("environment") or {}, bool(data.get("stopped")))


def _with_message(row: dict[str, Any]) -> dict[str, Any]:
    """A run as results.json keeps it: its row, and its verdict's reason as a message (``verdict_message``: template and
    values, docs/DESIGN.md §4.4), so a page in another language reads the file's reasons whole."""
    data = message_data(row.get("verdict_reason"))
    return {**row, "verdict_message": data} if data else row


def _check_regret(settings: Any, where: str) -> None:
    """ArenaError unless settings.regret is absent or names, per preset, its lengths and default length."""
    regret = settings.get("regret") if isinstance(settings, dict) else None
    if regret is None:
        return
    layouts = regret.get("presets") if isinstance(regret, dict) else None
    if not isinstance(layouts, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("lengths"), list) and isinstance(v.get("default_length"), int)
            for v in layouts.values()):
        raise ArenaError(msg("{where}: settings.regret must give each preset its 'lengths' and 'default_length'", where=where))


def load_results(path: Path | str) -> BenchResult:
    """A results.json file, read with a byte cap."""
    path = Path(path)
    text = read_text_file(path, "results file", MAX_RESULTS_BYTES)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArenaError(msg("{name}: not valid JSON ({msg} at line {lineno})", name=path.name, msg=exc.msg,
                             lineno=exc.lineno)) from None
    return BenchResult.from_dict(data, path.name)


def write_csv(result: BenchResult, path: Path) -> None:
    frame = result.frame()
    for column in LIST_COLUMNS:
        frame[column] = frame[column].map(json.dumps)
    frame = frame.map(csv_cell)  # a suite's ids and categories are user text: no cell may run as a formula
    frame.to_csv(path, index=False)


def write_results(result: BenchResult, out_dir: Path | str, plots: dict[str, str], summary: str) -> list[Path]:
    """Write results.csv, results.json, summary.md and each plot (name -> SVG text) into `out_dir` (created);
    returns the paths. An OSError becomes one line naming the file."""
    out = Path(out_dir)
    files = {"results.json": json.dumps(result.to_dict(), ensure_ascii=False, indent=1), "summary.md": summary, **plots}
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_csv(result, out / "results.csv")
        for name, text in files.items():
            (out / name).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ArenaError(msg("Cannot write the results into {out}: {strerror}", out=out,
                             strerror=exc.strerror or exc)) from None
    return [out / "results.csv", *(out / name for name in files)]
