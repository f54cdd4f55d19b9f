"""The operator's serving engines where the page lists presets (docs/DESIGN.md §4.7): each engine is one more choice,
``engine:NAME``, in the Race tab's and the Planner tab's preset lists and in the ``/race``, ``/measure`` and ``/plan``
APIs' preset parameter. A visitor picks a name; the URLs stay the operator's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional, Sequence

from ..engine.target import EngineTarget, find_target

#: The value that picks one of the operator's engines where a preset id is expected: "engine:NAME".
ENGINE_CHOICE = "engine:"
#: The mark of the engines' group in a preset list (the presets' groups have theirs: app/ui/race/controls.py).
ICON = "\u2699"


def engine_choice(name: str) -> str:
    """The preset-list value of the operator's engine `name`."""
    return ENGINE_CHOICE + name


def engine_name(choice: Any) -> Optional[str]:
    """The engine's name when `choice` picks one of the operator's engines, else None (a preset id)."""
    return choice[len(ENGINE_CHOICE):] if isinstance(choice, str) and choice.startswith(ENGINE_CHOICE) else None


def engine_choices(targets: Sequence[EngineTarget]) -> list[tuple[str, str]]:
    """(label, value) of each engine the operator offers (``app.py --endpoint NAME=URL[,plain=URL2]``)."""
    return [(f"{ICON} Serving engine \u00b7 {t.name} \u2014 {t.engine}, its own model and speculation",
             engine_choice(t.name)) for t in targets]


def chosen_target(choice: Any, targets: Sequence[EngineTarget]) -> Optional[EngineTarget]:
    """The operator's engine `choice` picks, its messages naming it instead of its URLs (a visitor never sees the
    operator's addresses); ArenaError, one line listing the names, for a name it does not offer; None when `choice`
    is a preset id."""
    name = engine_name(choice)
    return None if name is None else replace(find_target(name, targets), hide_urls=True)
