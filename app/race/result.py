"""The race result as typed structures: what crosses from the race to the CLI, the page and the API.

:meth:`RaceResult.to_dict` is the command-line JSON contract (docs/DESIGN.md §4) and
:meth:`RaceResult.from_dict` reads it back, checking every field, so a saved result from an
older or foreign file gets one clear message instead of a traceback.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ArenaError
from ..core.jsonfields import JsonReader
from ..core.words import join, msg
from .protocol import Mode, Round, Status, Token
from .stats import (acceptance_by_position, acceptance_rate, first_divergence, mean_accepted_length, speedup,
                    tokens_per_second)

#: Texts of end-of-text tokens of common tokenizers (shown as a small end marker).
END_MARKERS = {"</s>", "<|im_end|>", "<|endoftext|>", "<eos>", "<end_of_turn>", "<|eot_id|>", "<|end|>"}
_SPECIAL_TEXT = re.compile(r"^<\|?[A-Za-z_][\w.\-]*\|?>$|^</s>$|^<s>$")


def special_label(text: str, special: bool = False) -> str | None:
    """The small marker a special token shows instead of its raw text (the race tab and the replay page): an end
    marker for an end of text, a diamond for other markers; None for ordinary text."""
    stripped = text.strip()
    if not (special or _SPECIAL_TEXT.match(stripped or "-")):
        return None
    return "\u23ce end" if stripped in END_MARKERS or "end" in text.lower() else "\u25c6"


@dataclass
class SideResult:
    """One side of a race. seconds: wall time of generate(); ttft_seconds: time to the first new token;
    token_times: seconds from the start of generate() to each token (tokens of one round share a time);
    token_texts: each token's text decoded in context (for a trace; not part of the JSON contract)."""

    text: str = ""
    token_ids: list[int] = field(default_factory=list)
    seconds: float = 0.0
    ttft_seconds: float | None = None
    token_times: list[float] = field(default_factory=list)
    token_texts: list[str] = field(default_factory=list, compare=False)

    @property
    def new_tokens(self) -> int:
        return len(self.token_ids)

    @property
    def tokens_per_second(self) -> float:
        """Rounded as in the contract (3 decimals), so speedups computed from it match the JSON."""
        return round(tokens_per_second(self.new_tokens, self.seconds), 3)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "token_ids": list(self.token_ids), "new_tokens": self.new_tokens,
                "seconds": round(self.seconds, 4), "tokens_per_second": self.tokens_per_second,
                "ttft_seconds": round(self.ttft_seconds, 4) if self.ttft_seconds is not None else None,
                "token_times": [round(t, 4) for t in self.token_times]}


@dataclass
class AssistedResult(SideResult):
    """The assisted side: also every token with its status and every round. draft_policy: the schedule that
    chose each round's draft length ("cost-aware" or transformers' own); skipped_rounds: rounds the
    cost-aware policy chose not to draft in."""

    tokens: list[Token] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    draft_policy: str | None = None
    skipped_rounds: int = 0

    @property
    def acceptance_rate(self) -> float | None:
        return acceptance_rate(self.rounds)

    @property
    def mean_accepted_length(self) -> float:
        return mean_accepted_length(self.rounds)

    @property
    def acceptance_by_position(self) -> list[float]:
        """Item k: accepted / drafted at draft position k + 1 (docs/DESIGN.md §3)."""
        return acceptance_by_position(self.rounds)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out.update(tokens=[t.to_dict() for t in self.tokens], rounds=[r.to_dict() for r in self.rounds],
                   acceptance_rate=self.acceptance_rate, mean_accepted_length=self.mean_accepted_length,
                   acceptance_by_position=[round(x, 4) for x in self.acceptance_by_position],
                   draft_policy=self.draft_policy, skipped_rounds=self.skipped_rounds)
        return out


@dataclass
class RaceResult:
    """A finished (or stopped, or failed) race. errors: side -> one-line message; knobs: the method knobs it ran
    with; threads: torch CPU threads per side (None on a GPU); why: its explanation (app.race.why.Why); dtype: the
    target's weight dtype (for a trace's environment; not part of the JSON contract); baseline_kept_at: when the
    baseline was recorded, for a fair race that raced a kept plain run (seconds since the epoch; None: run now);
    baseline_check: the check of a kept run this race found, reused or not (app/race/trust.py ``KeptCheck``);
    divergence: where a greedy lossless race diverged, the target's top two there and whether it is a near-tie
    (app/race/divergence.py; None otherwise)."""

    preset: str
    method: str
    target: str
    assistant: str | None
    mode: Mode
    do_sample: bool
    device: str
    baseline: SideResult
    assisted: AssistedResult
    errors: dict[str, str] = field(default_factory=dict)
    stopped: bool = False
    knobs: dict[str, Any] = field(default_factory=dict)
    threads: int | None = None
    why: Any = None
    dtype: str | None = None
    baseline_kept_at: float | None = None
    baseline_check: dict[str, Any] | None = None
    divergence: dict[str, Any] | None = None
    conditions: Any = None
    _verdict: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def speedup(self) -> float:
        """Assisted tokens/s over baseline tokens/s (0 when the baseline produced nothing)."""
        return round(speedup(self.assisted.tokens_per_second, self.baseline.tokens_per_second), 4)

    @property
    def identical(self) -> bool:
        return self.baseline.token_ids == self.assisted.token_ids

    @property
    def first_divergence(self) -> int | None:
        return first_divergence(self.baseline.token_ids, self.assisted.token_ids)

    @property
    def prefix_only(self) -> bool:
        """The outputs differ only in length (one is a prefix of the other), e.g. after Stop."""
        at = self.first_divergence
        return at is not None and at == min(self.baseline.new_tokens, self.assisted.new_tokens)

    def divergence_reason(self, lossless: bool = True) -> tuple[str, bool]:
        """Why the outputs diverged, and whether that is expected (the app's and the replay page's badge)."""
        if self.stopped:
            return msg("stopped early: the runs ended at different lengths"), True
        if self.do_sample:
            return msg("expected with sampling: each run draws its own random tokens"), True
        if not lossless:
            return msg("expected: {method} is lossy by design", method=self.method), True
        return msg("unexpected for greedy lossless decoding (verifying several tokens per pass can flip near-tie "
                   "logits)"), False

    @property
    def failure(self) -> str | None:
        """One line saying which side failed and why (sides with the same message named once); None when none did."""
        if not self.errors:
            return None
        by_message: dict[str, list[str]] = {}
        for side, message in self.errors.items():
            by_message.setdefault(message, []).append(side)
        return join((msg("{sides} failed: {message}", sides=" and ".join(sides), message=message)
                     for message, sides in by_message.items()), "; ")

    def raise_if_failed(self) -> "RaceResult":
        """This result, or ArenaError(:attr:`failure`): an error anywhere makes the whole result an error, never a
        partial result that claims identical output or a speedup (docs/DESIGN.md §4)."""
        if self.errors:
            raise ArenaError(self.failure)
        return self

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract object (docs/DESIGN.md §4)."""
        out = {"preset": self.preset, "method": self.method, "target": self.target, "assistant": self.assistant,
               "mode": self.mode, "do_sample": self.do_sample, "device": self.device,
               "baseline": self.baseline.to_dict(), "assisted": self.assisted.to_dict(), "speedup": self.speedup,
               "identical": self.identical, "first_divergence": self.first_divergence,
               "knobs": dict(self.knobs), "threads": self.threads,
               "why": self.why.to_dict() if self.why is not None else None}
        if self.errors:
            out["errors"] = dict(self.errors)
            out.update(speedup=0.0, identical=False)  # a failed race claims neither (docs/DESIGN.md §4)
        if self.stopped:
            out["stopped"] = True
        if self.baseline_kept_at is not None:
            out["baseline_kept_at"] = self.baseline_kept_at
        if self.baseline_check is not None:
            out["baseline_check"] = dict(self.baseline_check)
        if self.divergence is not None:
            out["divergence"] = dict(self.divergence)
        if not self.errors:
            out["verdict"] = self.verdict.to_dict()
        return out

    @property
    def verdict(self) -> Any:
        """The race's one verdict (app/race/verdict.py ``Verdict``): faster, slower, level or not a measurement, with
        its reason. Computed once (by :meth:`settle` when the race is explained, else on first use) and read by every
        surface."""
        if self._verdict is None:
            from .verdict import judge

            self._verdict = judge(self, self.why)
        return self._verdict

    def settle(self, verdict: Any) -> "RaceResult":
        """Fix the race's verdict (app/race/verdict.py ``judge``; app/race/why.py calls it once per race)."""
        self._verdict = verdict
        return self

    @classmethod
    def from_dict(cls, data: Any, where: str = "result") -> "RaceResult":
        """Read a contract object back; ArenaError naming the first bad field."""
        return _Reader(where).race(data)


class _Reader(JsonReader):
    """Checks a contract object field by field (see :meth:`RaceResult.from_dict`)."""

    def ints(self, data: Any, key: str, path: str) -> list[int]:
        values = self.get(data, key, (list,), path)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise self.fail(f"{path}.{key}", "must be a list of token ids")
        return list(values)

    def numbers(self, data: Any, key: str, path: str) -> list[float]:
        values = self.get(data, key, (list,), path, optional=True) or []
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            raise self.fail(f"{path}.{key}", "must be a list of numbers")
        return [float(v) for v in values]

    def side(self, data: Any, path: str) -> dict[str, Any]:
        out = {"text": self.get(data, "text", (str,), path), "token_ids": self.ints(data, "token_ids", path),
               "seconds": float(self.get(data, "seconds", (int, float), path)),
               "ttft_seconds": self.get(data, "ttft_seconds", (int, float), path, optional=True),
               "token_times": self.numbers(data, "token_times", path)}
        if out["token_times"] and len(out["token_times"]) != len(out["token_ids"]):
            raise self.fail(f"{path}.token_times", "must have one time per token")
        return out

    def token(self, data: Any, path: str) -> Token:
        status = self.one_of(self.get(data, "status", (str,), path), tuple(Status), f"{path}.status")
        return Token(self.get(data, "id", (int,), path), self.get(data, "text", (str,), path), status,
                     self.get(data, "p_target", (int, float), path, optional=True),
                     self.get(data, "p_draft", (int, float), path, optional=True),
                     bool(self.get(data, "special", (bool,), path, optional=True)))

    def round(self, data: Any, path: str) -> Round:
        drafted, accepted = self.get(data, "drafted", (int,), path), self.get(data, "accepted", (int,), path)
        if not 0 <= accepted <= drafted:
            raise self.fail(path, f"accepts {accepted} of {drafted} drafted tokens")
        number = (int, float)
        return Round(drafted, accepted, self.get(data, "rejected_text", (str,), path, optional=True) or "",
                     float(self.get(data, "draft_seconds", number, path, optional=True) or 0.0),
                     float(self.get(data, "verify_seconds", number, path, optional=True) or 0.0),
                     self.get(data, "rejected_p_target", number, path, optional=True),
                     self.get(data, "rejected_p_draft", number, path, optional=True))

    def race(self, data: Any) -> RaceResult:
        a = self.get(data, "assisted", (dict,), "")
        assisted = AssistedResult(**self.side(a, "assisted"),
                                  tokens=[self.token(t, f"assisted.tokens.{i}")
                                          for i, t in enumerate(self.get(a, "tokens", (list,), "assisted"))],
                                  rounds=[self.round(r, f"assisted.rounds.{i}")
                                          for i, r in enumerate(self.get(a, "rounds", (list,), "assisted"))],
                                  draft_policy=self.get(a, "draft_policy", (str,), "assisted", optional=True),
                                  skipped_rounds=self.get(a, "skipped_rounds", (int,), "assisted", optional=True) or 0)
        if len(assisted.tokens) != len(assisted.token_ids):
            raise self.fail("assisted.tokens", "must have one entry per token id")
        mode = self.one_of(self.get(data, "mode", (str,), ""), tuple(Mode), "mode")
        errors = self.get(data, "errors", (dict,), "", optional=True) or {}
        return self.settled(data, RaceResult(
            preset=self.get(data, "preset", (str,), ""), method=self.get(data, "method", (str,), ""),
            target=self.get(data, "target", (str,), ""), assistant=self.get(data, "assistant", (str,), "", optional=True),
            mode=mode, do_sample=self.get(data, "do_sample", (bool,), ""), device=self.get(data, "device", (str,), ""),
            baseline=SideResult(**self.side(self.get(data, "baseline", (dict,), ""), "baseline")), assisted=assisted,
            errors={str(k): str(v) for k, v in errors.items()},
            stopped=bool(self.get(data, "stopped", (bool,), "", optional=True)),
            knobs=dict(self.get(data, "knobs", (dict,), "", optional=True) or {}),
            threads=self.get(data, "threads", (int,), "", optional=True), why=self.why(data),
            baseline_kept_at=self.get(data, "baseline_kept_at", (int, float), "", optional=True),
            baseline_check=self.get(data, "baseline_check", (dict,), "", optional=True),
            divergence=self.get(data, "divergence", (dict,), "", optional=True)))

    def settled(self, data: Any, result: RaceResult) -> RaceResult:
        """`result` with the verdict its file saved (and the conditions in it), when it saved one: a replay shows the
        verdict the race showed. A file without one gets it computed from its figures. Its words become messages again
        where this code writes them the same (app/race/why.py ``reworded``)."""
        from .verdict import Verdict

        from .why import reworded

        saved = Verdict.from_dict(data.get("verdict")) if isinstance(data, dict) else None
        if saved is not None:
            result.conditions = saved.conditions
            result.settle(saved)
        reworded(result)
        return result

    def why(self, data: Any) -> Any:
        """The explanation, read back (None when absent or from an older file)."""
        from .why import Why

        raw = self.get(data, "why", (dict,), "", optional=True)
        if raw is None:
            return None
        try:
            return Why(**{"claims": [], "sentences": [], "kind": None, **raw})
        except TypeError:
            raise self.fail("why", "has unknown or missing fields") from None
