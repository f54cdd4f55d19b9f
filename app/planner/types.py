"""A plan as typed structures: what the planner builds (app/planner/plan.py, engine_plan.py) and every reader uses
by attribute (the Planner tab, ``python -m app plan``, Tune). :meth:`Plan.to_dict` is the ``plan --json`` object
(docs/DESIGN.md §4.1), also the /plan API's and the MCP tool's answer; ``--csv`` flattens it.

Numbers are stored rounded as the JSON shows them (alpha 4 decimals, c 5, speedups 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.jsonfields import json_ready, omitted_when_none
from .check import CheckRun
from .cost import CostSummary
from .measure import AgreementAlpha, LookupAgreement, ObservedAlpha
from .memory import MemoryUnavailable, PairMemory
from .timing import StepRatio, VerifySlope


@dataclass
class CurvePoint:
    """Theorem 3.8's speedup (x) at draft length `gamma`; tokens_per_round: expected tokens per target pass (the
    main curve has it, the hardware-adjusted one does not)."""

    gamma: int
    speedup: float
    tokens_per_round: float | None = omitted_when_none(default=None)


@dataclass
class TheoryVerdict:
    """The alpha-versus-c check in plain words (app/core/theory.py ``verdict``): whether alpha exceeds c, whether it
    is too close to call from c's measured spread, whether the best gamma beats plain decoding, the gammas slower
    than plain decoding, and the sentence."""

    alpha_exceeds_c: bool
    close: bool
    worth_it: bool
    slower_than_plain_gammas: list[int]
    text: str


@dataclass
class TableCell:
    """One cell of the best-gamma table: at (alpha, c) the best gamma and its speedup; measured: the plan's point."""

    alpha: float
    c: float
    best_gamma: int
    speedup: float
    measured: bool


@dataclass
class GammaTable:
    """The table around the plan's (alpha, c): its rows (alphas), columns (cs) and cells[row][column]."""

    alphas: list[float]
    cs: list[float]
    cells: list[list[TableCell]]

    @classmethod
    def of(cls, table: dict[str, Any]) -> "GammaTable":
        """From app/core/theory.py's ``table_around`` dict."""
        return cls(table["alphas"], table["cs"], [[TableCell(**x) for x in row] for row in table["cells"]])


@dataclass
class FinalVerdict:
    """The plan's one verdict (docs/DESIGN.md §5.16). pays: "yes", "no", "level" or "close"; source: "measured" or
    "predicted"; text: the verdict's sentence; prediction: what alpha and c alone said."""

    pays: str
    source: str
    text: str
    prediction: str


@dataclass
class MeasuredPoint:
    """A measured speedup (x) drawn beside the predicted curve, at draft length `gamma` (a fixed one, or the mean a
    dynamic schedule drafted), with its label."""

    gamma: float
    speedup: float
    label: str


@dataclass
class HardwareAdjusted:
    """The prediction with the verification slope this hardware pays (docs/DESIGN.md §5.7): c_effective = c + slope,
    its best gamma, predicted speedup and curve."""

    verify_slope: VerifySlope
    c_effective: float
    best_gamma: int
    predicted_speedup: float
    curve: list[CurvePoint]


@dataclass
class Measurement:
    """What a measured plan measured: prompts x max_new_tokens greedy, alpha by agreement (alpha_seed), alpha
    observed in races (None before any), c and what prompt lookup would get on these prompts."""

    prompts: int
    max_new_tokens: int
    greedy: bool
    alpha_seed: AgreementAlpha
    alpha_observed: ObservedAlpha | None
    c: StepRatio
    prompt_lookup: LookupAgreement


@dataclass
class Check:
    """The check races (docs/DESIGN.md §5.16): the best constant gamma, the default setting and the
    hardware-adjusted gamma (None when it is one of the others), which to use and whether drafting paid."""

    constant: CheckRun
    default: CheckRun
    adjusted: CheckRun | None
    recommendation: str
    pays: str

    @property
    def runs(self) -> list[CheckRun]:
        """The races in display order (constant, default, adjusted when raced)."""
        return [r for r in (self.constant, self.default, self.adjusted) if r is not None]


@dataclass
class Vocabulary:
    """Whether two tokenizers have identical vocabularies (token -> id), their sizes and the strings they share."""

    identical: bool
    target_size: int
    drafter_size: int
    shared_strings: int


@dataclass
class EngineCost:
    """c measured from a serving engine's own step times (docs/DESIGN.md §5.17): value = (verify step - plain step)
    / (mean drafted x plain step), with its spread over the prompts (low..high) and the times it comes from (ms)."""

    value: float
    low: float
    high: float
    plain_ms_per_token: float
    verify_ms_per_step: float
    mean_drafted: float
    steps: int
    per_prompt: list[float]
    what: str


@dataclass
class EngineSpeedup:
    """Measured speedups (x) of the engine's speculation: decode, the engine's own predicted_per_second assisted over
    plain (prefill left out); end_to_end, the arena's clock (request sent to last token), both over all prompts;
    per_prompt: the engine's decode speedup of each prompt; predicted: Theorem 3.8 at the measured alpha and c at
    predicted_gamma, the engine's mean draft length rounded (at least 1)."""

    decode: float
    end_to_end: float
    per_prompt: list[float]
    predicted_gamma: int
    predicted: float


@dataclass
class EngineMeasurement:
    """A plan measured on a serving engine (docs/DESIGN.md §4.7): the engine, where its rounds came from
    (status_source), prompts x max_new_tokens greedy, alpha observed in its rounds, c from its step times and the
    measured speedups; identical: every prompt's assisted text equalled plain's."""

    name: str
    version: str | None
    speculative_type: str
    status_source: str
    prompts: int
    max_new_tokens: int
    greedy: bool
    alpha_observed: ObservedAlpha
    c: EngineCost
    speedup: EngineSpeedup
    identical: bool


@dataclass
class Plan:
    """One plan (docs/DESIGN.md §4.1, §5). mode: "calculator" (alpha and c given) or "measured". The fields after
    `final` are set as a plan has them: preset and method (a preset's or a measured plan), target and assistant
    (models named), the measured plan's sources, device, hardware-adjusted prediction, measurement and check races,
    memory (from configs, or why not), vocabulary check; an engine plan has `engine` instead of a measurement."""

    mode: str
    alpha: float
    c: float
    best_gamma: int
    predicted_speedup: float
    speedup_by_gamma: dict[str, float]
    curve: list[CurvePoint]
    verdict: TheoryVerdict
    table: GammaTable
    cost: CostSummary
    measured_points: list[MeasuredPoint] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)
    final: FinalVerdict | None = None
    preset: str | None = None
    method: str | None = None
    target: str | None = None
    assistant: str | None = None
    alpha_source: str | None = None
    c_source: str | None = None
    device: str | None = None
    hardware_adjusted: HardwareAdjusted | None = None
    measurement: Measurement | None = None
    check: Check | None = None
    memory: PairMemory | MemoryUnavailable | None = None
    vocabulary: Vocabulary | None = None
    engine: EngineMeasurement | None = None

    @property
    def measured(self) -> bool:
        return self.mode == "measured"

    def to_dict(self) -> dict[str, Any]:
        """The ``plan --json`` object: every key a plan of its kind has, in the order the JSON has always had."""
        keys = ["mode", "alpha", "c", "best_gamma", "predicted_speedup", "speedup_by_gamma", "curve", "verdict",
                "table", "cost", "measured_points", "notes", "advice", "final"]
        if self.preset is not None:
            keys += ["preset", "method"]
        if self.target is not None:
            keys += ["target", "assistant"]
        if self.measured:
            keys += ["alpha_source", "c_source", "device"]
        if self.measurement is not None:
            keys += ["hardware_adjusted", "measurement", "check"]
        if self.memory is not None:
            keys.append("memory")
        if self.measurement is not None:
            keys.append("vocabulary")
        if self.engine is not None:
            keys.append("engine")
        out = {key: json_ready(getattr(self, key)) for key in keys}
        if self.measured:  # a measured plan says whether its prices are a projection (None: measured on a GPU)
            out["cost"]["projection"] = self.cost.projection
        return out
