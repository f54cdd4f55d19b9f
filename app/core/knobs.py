"""The knob table: every setting a user can change, declared once (docs/DESIGN.md §4.2, §8).

Each :class:`Knob` holds a setting's name (the ``GenerationConfig`` argument name where one exists), type, bounds,
page label and help; the table drives preset validation, the command-line flags, the Gradio controls and the
``/race`` and ``/measure`` API signatures. :meth:`Knob.check` names where a bad value came from (:class:`Origin`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import ArenaError
from .words import join, msg

#: transformers' own draft-length schedules, named as transformers names them.
TRANSFORMERS_SCHEDULES = ("constant", "heuristic", "heuristic_transient")
#: This app's schedule (app/race/drafting.py): each round drafts the length that pays on this hardware.
COST_AWARE = "cost-aware"
SCHEDULES = (COST_AWARE, *TRANSFORMERS_SCHEDULES)
#: The largest seed torch accepts (a signed 64-bit integer).
MAX_SEED = 2 ** 63 - 1


def shown(value: Any, limit: int = 60) -> str:
    """`value` for an error message: repr (control characters escaped), at most `limit` characters.

    Huge whole numbers are described by their digit count (formatting them as floats overflows).
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 30:
        return f"a whole number with {len(str(abs(value))) if abs(value) < 10 ** 4000 else 'thousands of'} digits"
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit - 15]}... ({len(str(value))} characters)"


def blank(value: Any) -> bool:
    """None or blank text: a value that was not given."""
    return value is None or (isinstance(value, str) and not value.strip())


def _num(x: float) -> str:
    """A bound or value in a message: whole numbers exactly, others as %g."""
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 2 ** 63):
        return shown(int(x))
    return f"{x:g}"


@dataclass(frozen=True)
class Origin:
    """Where a value came from, for error messages.

    kind: "preset" (a YAML file: `name` is the file), "flag" (the command line), "request" (the web page or the
    API, naming the parameter) or "form" (the planner's and the benchmark's fields, named by their page labels).
    """

    kind: str
    name: str = ""

    def blame(self, knob: str, problem: str, label: str = "") -> ArenaError:
        """An error that names the value's origin and the problem (`label`: the field's name on the page)."""
        if self.kind == "preset":
            return ArenaError(msg("{name}: field '{knob}' {problem}", name=self.name, knob=knob, problem=problem))
        if self.kind == "flag":
            return ArenaError(join((f"--{knob.replace('_', '-')}", problem)))
        if self.kind == "form":
            return ArenaError(join((label or knob, problem)))
        return ArenaError(join((f"{self.name or 'request'}:", knob, problem)))


FLAG = Origin("flag")
REQUEST = Origin("request", "request")
FORM = Origin("form")


@dataclass(frozen=True)
class Knob:
    """One user-settable value.

    kind: "int" | "float" | "choice". low/high: bounds (None: unbounded); low_open/high_open: the
    bound itself is excluded. choices: the allowed strings of a "choice". drafter_config: set on the
    drafting model's generation_config rather than passed to generate(). method_knob: a method's
    knob (the methods registry says which methods accept it), as opposed to a decoding setting.
    step: the spacing of the page's control. hint: appended to a range error.
    """

    name: str
    kind: str
    label: str
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    drafter_config: bool = False
    method_knob: bool = True
    step: float | None = None
    hint: str = ""

    @property
    def flag(self) -> str:
        """The command-line flag: --num-assistant-tokens."""
        return "--" + self.name.replace("_", "-")

    @property
    def python_type(self) -> type:
        return {"int": int, "float": float, "choice": str}[self.kind]

    def bounds_text(self) -> str:
        """'between 1 and 64', 'at least 1', 'above 0', 'in [0, 1)', 'one of constant, heuristic'."""
        if self.kind == "choice":
            return f"one of {', '.join(self.choices)}"
        if self.high is None:
            return f"{'above' if self.low_open else 'at least'} {_num(self.low)}"
        if not (self.low_open or self.high_open):
            return f"between {_num(self.low)} and {_num(self.high)}"
        left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
        return f"in {left}{_num(self.low)}, {_num(self.high)}{right}"

    def _in_bounds(self, value: float) -> bool:
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        return self.high is None or not (value > self.high or (self.high_open and value == self.high))

    def coerce(self, value: Any, origin: Origin) -> Any:
        """`value` as this knob's type (numbers given as text are parsed); an error names `origin`."""
        if self.kind == "choice":
            if not isinstance(value, str):
                raise origin.blame(self.name, f"must be {self.bounds_text()}; got {shown(value)}", self.label)
            return value.strip()
        if isinstance(value, bool):
            raise origin.blame(self.name, f"must be a number, got {shown(value)}", self.label)
        if self.kind == "int":
            return self._whole(value, origin)
        try:
            out = float(value.strip() if isinstance(value, str) else value)
        except (TypeError, ValueError, OverflowError):
            raise origin.blame(self.name, f"must be a number, got {shown(value)}", self.label) from None
        if not math.isfinite(out):
            raise origin.blame(self.name, f"must be a finite number, got {shown(value)}", self.label)
        return out

    def _whole(self, value: Any, origin: Origin) -> int:
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and len(value.strip()) <= 1000:  # int() of longer text is slow (quadratic)
            try:
                return int(value.strip())
            except ValueError:
                pass
        raise origin.blame(self.name, f"must be a whole number, got {shown(value)}", self.label)

    def check(self, value: Any, origin: Origin) -> Any:
        """The coerced, range-checked value (None passes: 'not set')."""
        if value is None:
            return None
        out = self.coerce(value, origin)
        if self.kind == "choice":
            if out not in self.choices:
                raise origin.blame(self.name, f"must be {self.bounds_text()}; got {shown(out)}", self.label)
            return out
        if not self._in_bounds(out):
            hint = f" {self.hint}" if self.hint else ""
            if origin.kind == "request" and not hint and self.low is not None and self.high is not None \
                    and not (self.low_open or self.high_open):  # blame's line, as one sentence the page translates
                raise ArenaError(msg("{name}: {knob} must be between {low} and {high}; got {value}",
                                     name=origin.name or "request", knob=self.name, low=_num(self.low),
                                     high=_num(self.high), value=_num(out)))
            raise origin.blame(self.name, f"must be {self.bounds_text()}{hint}; got {_num(out)}", self.label)
        return out

    def require(self, value: Any, origin: Origin) -> Any:
        """:meth:`check` for a value that must be given: None or blank text is an error too."""
        if blank(value):
            raise origin.blame(self.name, f"must be given ({self.bounds_text()})", self.label)
        return self.check(value, origin)

    def parse_flag(self, text: str) -> Any:
        """argparse ``type=``: the checked value, or ArgumentTypeError with the bound."""
        import argparse

        try:
            return self.check(text, FLAG)
        except ArenaError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(" ", 1)[1]) from None


_DRAFT = dict(drafter_config=True)
KNOB_LIST = (
    Knob("num_assistant_tokens", "int", "Draft length k", "tokens drafted per round (empty: transformers' default)",
         1, 64, step=1, **_DRAFT),
    Knob("num_assistant_tokens_schedule", "choice", "Draft length schedule",
         "cost-aware (this app): each round drafts the length that pays here, or nothing; transformers' own: "
         "constant, heuristic (grows k after full acceptance, shrinks it after a miss), heuristic_transient",
         choices=SCHEDULES, **_DRAFT),
    Knob("assistant_confidence_threshold", "float", "Confidence threshold",
         "drafting stops when the drafter is less sure than this", 0.0, 1.0, high_open=True, step=0.05, **_DRAFT),
    Knob("prompt_lookup_num_tokens", "int", "Lookup tokens", "tokens copied from the prompt after a matching n-gram",
         1, 64, step=1),
    Knob("max_matching_ngram_size", "int", "Max n-gram size",
         "longest n-gram transformers' lookup searches for (constant schedule; cost-aware finds the longest match)",
         1, 16, step=1),
    Knob("assistant_early_exit", "int", "Exit layer", "the target drafts with its first N layers", 1, 1024, step=1),
    Knob("assistant_ensemble_weight", "float", "Ensemble weight",
         "target share of the blended probabilities (0.7 suggested; lossy)", 0.0, 1.0, low_open=True, high_open=True,
         step=0.05, hint="(0.7 is a good start)"),
    Knob("max_new_tokens", "int", "Max new tokens", "tokens each side generates at most", 1, 4096, step=1,
         method_knob=False),
    Knob("temperature", "float", "Temperature", "sampling temperature", 0.0, 5.0, low_open=True, step=0.05,
         method_knob=False),
    Knob("top_p", "float", "Top-p", "nucleus sampling: keep the smallest set of tokens with this much probability",
         0.0, 1.0, low_open=True, step=0.05, method_knob=False),
    Knob("seed", "int", "Seed", "random seed for sampling (empty: random)", 0, MAX_SEED, step=1, method_knob=False),
)
KNOB_TABLE: dict[str, Knob] = {k.name: k for k in KNOB_LIST}
#: The method knobs, each a GenerationConfig argument name, in display order.
KNOBS: tuple[str, ...] = tuple(k.name for k in KNOB_LIST if k.method_knob)
#: The knobs transformers reads from the drafting model's generation config, in the table's order: the
#: draft-length knobs every method that drafts with a model takes.
DRAFTER_CONFIG_KNOBS: tuple[str, ...] = tuple(k.name for k in KNOB_LIST if k.drafter_config)


def knobs_text(knobs: dict[str, Any]) -> str:
    """Method knobs as a person reads them: "draft length k 20, draft length schedule constant" (page labels, values
    as typed; a name the table does not know keeps its own name); "the preset's settings" when there are none."""
    if not knobs:
        return "the preset's settings"

    def one(name: str, value: Any) -> str:
        knob = KNOB_TABLE.get(name)
        label = knob.label if knob else name.replace("_", " ")
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return f"{label[:1].lower()}{label[1:]} {_num(value) if number else value}"

    return ", ".join(one(k, v) for k, v in knobs.items())
