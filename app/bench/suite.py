"""Prompt suites: the built-in one (assets/suites/builtin.jsonl) and the user's JSONL or CSV files (docs/DESIGN.md
§4.4): a list of :class:`SuitePrompt`; a malformed file is one :class:`ArenaError` naming the file and the line.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from ..core.errors import ArenaError
from ..core.requests import read_text_file
from ..core.words import msg

BUILTIN_SUITE = Path(__file__).resolve().parents[2] / "assets" / "suites" / "builtin.jsonl"
#: The built-in suite's categories: Spec-Bench's six plus code editing, in display order.
BUILTIN_CATEGORIES = ("multi-turn", "translation", "summarisation", "qa", "maths", "rag", "code-editing")
SPLITS = ("tune", "test")
SPLIT_CHOICES = ("all", *SPLITS)
#: The category of a prompt whose file gives none.
DEFAULT_CATEGORY = "uncategorised"
#: The largest suite file read (bytes).
MAX_SUITE_BYTES = 2_000_000
FIELDS = ("prompt", "category", "id", "split")


@dataclass(frozen=True)
class SuitePrompt:
    """One prompt of a suite. split: "tune", "test" or None (the file gave none: only in split "all")."""

    id: str
    prompt: str
    category: str = DEFAULT_CATEGORY
    split: str | None = None


def _field(value: Any, name: str, where: str) -> str | None:
    """A text field's stripped value (numbers allowed for ids); None when absent or blank."""
    if value is None:
        return None
    if name == "id" and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ArenaError(msg("{where}: '{name}' must be text, got {type}", where=where, name=name, type=type(value).__name__))
    return value.strip() or None


def make_prompt(record: dict[str, Any], where: str, number: int) -> SuitePrompt:
    """A checked SuitePrompt from one record (a JSON object or CSV row); `where` names file and line."""
    prompt = record.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        keys = ", ".join(sorted(map(str, record))) or "none"
        raise ArenaError(msg("{where}: needs a non-empty 'prompt' (text); fields found: {keys}", where=where, keys=keys))
    split = _field(record.get("split"), "split", where)
    if split is not None and split not in SPLITS:
        raise ArenaError(msg("{where}: 'split' must be tune or test, got {split}", where=where, split=repr(split)))
    return SuitePrompt(id=_field(record.get("id"), "id", where) or f"prompt-{number}", prompt=prompt.strip(),
                       category=_field(record.get("category"), "category", where) or DEFAULT_CATEGORY, split=split)


def parse_jsonl(text: str, name: str) -> list[SuitePrompt]:
    """Prompts of a JSONL text (blank lines skipped); ArenaError naming `name` and the line."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ArenaError(msg("{name} line {number}: not valid JSON ({msg} at column {colno})", name=name, number=number,
                                 msg=exc.msg, colno=exc.colno)) from None
        if not isinstance(record, dict):
            raise ArenaError(msg("{name} line {number}: must be a JSON object with a 'prompt' field", name=name, number=number))
        out.append((make_prompt(record, where, number), where))
    return _checked(out, name)


def parse_csv(text: str, name: str) -> list[SuitePrompt]:
    """Prompts of a CSV text with a header row naming at least 'prompt'; ArenaError naming the line."""
    reader = csv.DictReader(io.StringIO(text), restkey="\0extra")
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise ArenaError(msg("{name} line 1: not valid CSV ({exc})", name=name, exc=exc)) from None
    if "prompt" not in header:
        raise ArenaError(msg("{name} line 1: the header must name a 'prompt' column (optional: category, id, split)",
                             name=name))
    reader.fieldnames = header
    out, line = [], 1
    try:
        for row in reader:
            where = f"{name} line {line + 1}"
            if "\0extra" in row:
                raise ArenaError(msg("{name} line {line}: more fields than the header's {header} (quote text that has commas)",
                                     name=name, line=line + 1, header=len(header)))
            line = reader.line_num
            if not any((v or "").strip() for v in row.values()):
                continue
            out.append((make_prompt({k: v for k, v in row.items() if k in FIELDS}, where, line), where))
    except csv.Error as exc:
        raise ArenaError(msg("{name} line {line_num}: not valid CSV ({exc})", name=name, line_num=reader.line_num,
                             exc=exc)) from None
    return _checked(out, name)


def _checked(items: list[tuple[SuitePrompt, str]], name: str) -> list[SuitePrompt]:
    """Refuse an empty suite and repeated ids (the error names the line of the second one)."""
    if not items:
        raise ArenaError(msg("{name}: the suite holds no prompts", name=name))
    seen: dict[str, str] = {}
    for p, where in items:
        if p.id in seen:
            raise ArenaError(msg("{where}: id {id} is used twice (first at {split})", where=where, id=repr(p.id),
                                 split=seen[p.id].split(' ', 1)[1]))
        seen[p.id] = where
    return [p for p, _ in items]


def parse_suite(text: str, name: str) -> list[SuitePrompt]:
    """JSONL when `name` ends in .jsonl/.json or the text starts with '{', else CSV."""
    lower = name.lower()
    if lower.endswith((".jsonl", ".json", ".ndjson")) or (not lower.endswith(".csv") and text.lstrip().startswith("{")):
        return parse_jsonl(text, name)
    return parse_csv(text, name)


def load_suite(path: Path | str | None = None, display_name: str | None = None) -> list[SuitePrompt]:
    """The suite in `path` (None: the built-in suite), read with the byte cap. display_name: the name errors
    use (e.g. the name of an uploaded file instead of its temporary path)."""
    path = Path(path) if path is not None else BUILTIN_SUITE
    text = read_text_file(path, "suite file", MAX_SUITE_BYTES)
    return parse_suite(text, display_name or path.name)


def order_categories(names: Iterable[str]) -> list[str]:
    """Distinct category names: the built-in ones in their display order first, then the others as first seen."""
    seen = list(dict.fromkeys(names))
    return [c for c in BUILTIN_CATEGORIES if c in seen] + [c for c in seen if c not in BUILTIN_CATEGORIES]


def categories_of(prompts: Iterable[SuitePrompt]) -> list[str]:
    """The categories of `prompts` (see :func:`order_categories`)."""
    return order_categories(p.category for p in prompts)


def select(prompts: list[SuitePrompt], categories: Iterable[str] | None = None, split: str = "all",
           limit: int | None = None) -> list[SuitePrompt]:
    """The prompts of `categories` (None or empty: all) in `split` ("all", "tune", "test"), at most `limit` per
    category, in suite order; ArenaError when a name is unknown or nothing is left."""
    if split not in SPLIT_CHOICES:
        raise ArenaError(msg("split must be one of {SPLIT_CHOICES}; got {split}", SPLIT_CHOICES=', '.join(SPLIT_CHOICES),
                             split=repr(split)))
    known = categories_of(prompts)
    wanted = [c.strip() for c in (categories or []) if c and c.strip()]
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise ArenaError((msg("unknown category {unknown}; this suite has {known}", unknown=', '.join(unknown),
                              known=', '.join(known))
                          if len(unknown) == 1 else msg("unknown categories {unknown}; this suite has {known}",
                                                        unknown=', '.join(unknown), known=', '.join(known))))
    if limit is not None and limit < 1:
        raise ArenaError(msg("limit must be at least 1 prompt per category; got {limit}", limit=limit))
    chosen: list[SuitePrompt] = []
    per: dict[str, int] = {}
    for p in prompts:
        if (wanted and p.category not in wanted) or (split != "all" and p.split != split):
            continue
        if limit is None or per.get(p.category, 0) < limit:
            chosen.append(p)
            per[p.category] = per.get(p.category, 0) + 1
    if not chosen:
        raise ArenaError((msg("no prompts left after choosing categories and split {split} (its prompts have no split field: "
                              "use split all)", split=repr(split))
                          if all((p.split is None for p in prompts)) else msg("no prompts left after choosing categories and "
                                                                              "split {split}", split=repr(split))))
    return chosen
