"""The sampling check's settings and result (docs/DESIGN.md §5.15); :meth:`CheckResult.to_dict` is the
``python -m app sampling-check --json`` object (docs/DESIGN.md §4.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.knobs import Knob
from ..core.words import msg
from .sampling_stats import ALPHA, Comparison

SAME, DIFFERENT = "same", "different"
#: Bounds of the check's own settings (the knob table's for temperature and top-p; these are the check's).
SAMPLES = Knob("samples", "int", "Samples", "continuations sampled on each side", 20, 20000, step=10, method_knob=False)
TOKENS = Knob("tokens", "int", "Tokens compared", "the first m new tokens of each continuation", 1, 32, step=1,
              method_knob=False)
TOP_K = Knob("top_k", "int", "Top-k", "sample from the k most likely tokens (0: all; empty: the model's default)",
             0, 1_000_000, step=1, method_knob=False)


def check_work_tokens(samples: int, tokens: int) -> int:
    """Tokens a check generates: `samples` continuations of `tokens` tokens on each side (no warm-up run;
    the cost-aware schedule's calibration is a few forwards over the prompt, not generated tokens)."""
    return 2 * int(samples) * int(tokens)


@dataclass(frozen=True)
class CheckSettings:
    """What one check samples: `samples` continuations a side, the first `tokens` new tokens compared, at
    `temperature`, `top_p` and `top_k` (None: the model's default); `seed` None picks one (reported)."""

    samples: int
    tokens: int
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int | None = None
    seed: int | None = None


def verdict_words(verdict: str, samples: int) -> str:
    """The verdict in words."""
    return (msg("no difference found at {samples} samples", samples=samples)
            if verdict == SAME else msg("different: this method is lossy"))


def _token_text(tokenizer: Any, category: Any) -> str:
    """A category as text: a token, a pair of tokens, or 'ended'."""
    if isinstance(category, tuple):
        return " | ".join(_token_text(tokenizer, c) for c in category)
    if category == -1:
        return "(ended)"
    return tokenizer.decode([int(category)], skip_special_tokens=False, clean_up_tokenization_spaces=False)


def _r(x: float, places: int = 6) -> float:
    return round(float(x), places)


@dataclass
class CheckResult:
    """One finished check. comparisons: one per position, then the joint of the first two tokens (when
    tokens >= 2). texts: the decoded text of each comparison's top categories. seconds: (plain, assisted)."""

    preset: str
    method: str
    lossless: bool
    target: str
    assistant: str | None
    device: str
    settings: CheckSettings
    top_k: int
    comparisons: list[Comparison]
    texts: list[list[str]]
    rounds: int
    undrafted: int
    drafted: int
    accepted: int
    seconds: tuple[float, float]

    @classmethod
    def build(cls, setup: Any, settings: CheckSettings, comparisons: list[Comparison], counter: Any, top_k: int,
              seconds: tuple[float, float]) -> "CheckResult":
        with setup.tokenizers.borrow() as tok:
            texts = [[_token_text(tok, cat) for cat, _, _ in c.top] for c in comparisons]
        p = setup.preset
        return cls(p.id, p.method, setup.method.lossless, p.target, p.assistant, str(setup.device), settings, top_k,
                   comparisons, texts, counter.rounds, counter.undrafted, counter.drafted, counter.accepted, seconds)

    @property
    def positions(self) -> list[Comparison]:
        return self.comparisons[:self.settings.tokens]

    @property
    def joint(self) -> Comparison | None:
        return self.comparisons[self.settings.tokens] if len(self.comparisons) > self.settings.tokens else None

    @property
    def verdict(self) -> str:
        return DIFFERENT if any(c.different for c in self.comparisons) else SAME

    @property
    def min_detectable_tv(self) -> float:
        """The largest critical TV among the comparisons: a true difference this large at any position (or
        jointly) is found about half the time or more."""
        return max(c.min_detectable_tv for c in self.comparisons)

    @property
    def warning(self) -> str | None:
        """Why a "same" verdict says little: the method drafted nothing (for instance the cost-aware schedule found
        that drafting does not pay here), so the check compared plain sampling with plain sampling."""
        if self.drafted:
            return None
        return (msg("nothing was drafted, so this compared plain sampling with itself: use a prompt or settings where the "
                    "method drafts (num_assistant_tokens_schedule constant, for instance)"))

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.drafted if self.drafted else None

    def _comparison(self, c: Comparison, texts: list[str]) -> dict[str, Any]:
        return {"label": c.label, "tv_distance": _r(c.tv_distance), "p_value": _r(c.p_value, 8),
                "min_detectable_tv": _r(c.min_detectable_tv), "level": _r(c.level, 8), "different": c.different,
                "categories": c.categories,
                "top": [{"token": list(cat) if isinstance(cat, tuple) else cat, "text": text, "plain": _r(a, 5),
                         "assisted": _r(b, 5)} for (cat, a, b), text in zip(c.top, texts)]}

    def to_dict(self) -> dict[str, Any]:
        s, joint = self.settings, self.joint
        items = [self._comparison(c, t) for c, t in zip(self.comparisons, self.texts)]
        return {
            "preset": self.preset, "method": self.method, "declared_lossless": self.lossless, "target": self.target,
            "assistant": self.assistant, "device": self.device, "samples": s.samples, "tokens": s.tokens,
            "temperature": s.temperature, "top_p": s.top_p, "top_k": self.top_k, "seed": s.seed,
            "tv_distance": [_r(c.tv_distance) for c in self.positions],
            "p_value": [_r(c.p_value, 8) for c in self.positions],
            "min_detectable_tv": _r(self.min_detectable_tv),
            "min_detectable_tv_by_position": [_r(c.min_detectable_tv) for c in self.positions],
            "joint": items[s.tokens] if joint is not None else None,
            "positions": items[:s.tokens], "alpha": ALPHA, "verdict": self.verdict,
            "verdict_text": verdict_words(self.verdict, s.samples), "warning": self.warning,
            "assisted_rounds": self.rounds, "assisted_undrafted_rounds": self.undrafted,
            "assisted_drafted": self.drafted, "assisted_accepted": self.accepted,
            "acceptance_rate": None if self.acceptance_rate is None else _r(self.acceptance_rate, 4),
            "plain_seconds": _r(self.seconds[0], 3), "assisted_seconds": _r(self.seconds[1], 3),
            "seconds": _r(sum(self.seconds), 3),
        }
