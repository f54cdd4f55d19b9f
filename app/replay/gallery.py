"""The gallery of recorded races: trace files in ``assets/races/`` and their ``index.json``
(``{"provisional", "note", "races": [GalleryEntry fields]}``), written by ``benchmarks/record_gallery.py``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..core.errors import ArenaError
from ..core.words import msg
from .tracefile import Trace, load_trace

GALLERY_DIR = Path(__file__).resolve().parents[2] / "assets" / "races"
INDEX = "index.json"
MAX_INDEX_BYTES = 200_000
#: The recorded race's one verdict (app/race/verdict.py), by kind, in the index's words.
OUTCOMES = {"win": "faster", "loss": "slower", "level": "level with plain", "unmeasured": "not a measurement"}
#: An older index's word for a level race.
OLD_OUTCOMES = {"about the same": "level with plain"}


def outcome_of(verdict: Any) -> str:
    """"faster", "slower", "level with plain" or "not a measurement": the recorded race's one verdict, in words."""
    return OUTCOMES[verdict.kind]


@dataclass(frozen=True)
class GalleryEntry:
    """One recorded race: `intended` is the role its prompt was chosen for ("win" or "lose"), `outcome` what the
    sequential measurement found (:func:`outcome_of`), `speedup` assisted over plain tokens/s."""

    file: str
    preset: str
    intended: str
    title: str
    outcome: str
    speedup: float
    mode: str
    recorded_at: str
    device_name: str


@dataclass(frozen=True)
class Gallery:
    """The index: its races in order, whether they are provisional, and a note on how they were recorded."""

    entries: tuple[GalleryEntry, ...]
    provisional: bool
    note: str
    folder: Path

    def path(self, index: int) -> Path:
        """The trace file of entry `index` (ArenaError when there is no such entry)."""
        if not isinstance(index, int) or not 0 <= index < len(self.entries):
            raise ArenaError(msg("There is no recorded race number {index} in the gallery.", index=index))
        return self.folder / self.entries[index].file

    def load(self, index: int) -> Trace:
        return load_trace(self.path(index))


def _entry(raw: Any, i: int) -> GalleryEntry:
    if not isinstance(raw, dict):
        raise ArenaError(msg("index.json: races.{i} must be a JSON object", i=i))
    values = {}
    for name in (f.name for f in fields(GalleryEntry)):
        value = raw.get(name)
        if not isinstance(value, (int, float) if name == "speedup" else str) or isinstance(value, bool):
            raise ArenaError(msg("index.json: races.{i}.{name} is missing or has the wrong type", i=i, name=name))
        values[name] = value
    file = values["file"]
    if Path(file).name != file or not file.endswith(".json") or file == INDEX:
        raise ArenaError(msg("index.json: races.{i}.file must be a .json file name in the gallery folder, got {file}", i=i,
                             file=repr(file)))
    outcome = OLD_OUTCOMES.get(values["outcome"], values["outcome"])
    return GalleryEntry(**{**values, "outcome": outcome, "speedup": float(values["speedup"])})


def load_gallery(folder: Path | str = GALLERY_DIR) -> Gallery:
    """Read ``index.json`` in `folder`; ArenaError naming what is wrong (a missing index is an empty gallery)."""
    folder = Path(folder)
    path = folder / INDEX
    if not path.exists():
        return Gallery((), True, "No recorded races yet: run python -m benchmarks.record_gallery.", folder)
    try:
        raw = path.read_bytes()[:MAX_INDEX_BYTES + 1]
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_INDEX_BYTES else None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ArenaError(msg("The gallery index index.json cannot be read ({type}).", type=type(exc).__name__)) from None
    if not isinstance(data, dict) or not isinstance(data.get("races"), list):
        raise ArenaError(msg("The gallery index index.json must be an object with a list of races."))
    # a recorded race that is not a measurement is no gallery entry (docs/DESIGN.md §5.16)
    entries = tuple(e for e in (_entry(r, i) for i, r in enumerate(data["races"])) if e.outcome != OUTCOMES["unmeasured"])
    return Gallery(entries, bool(data.get("provisional", True)), str(data.get("note") or ""), folder)


def write_index(folder: Path | str, entries: list[GalleryEntry], provisional: bool, note: str) -> Path:
    """Write ``index.json`` for `entries` into `folder`."""
    path = Path(folder) / INDEX
    data = {"provisional": provisional, "note": note, "races": [asdict(e) for e in entries]}
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def entry_for(trace: Trace, file: str, intended: str, title: str) -> GalleryEntry:
    """The index entry of a recorded `trace` saved as `file`."""
    r = trace.result
    return GalleryEntry(file=file, preset=r.preset, intended=intended, title=title,
                 outcome=outcome_of(r.verdict), speedup=round(r.verdict.speedup, 3), mode=r.mode,
                 recorded_at=trace.recorded_at, device_name=str(trace.environment.get("device_name") or ""))
