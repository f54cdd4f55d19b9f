"""Whether a measured speedup can be trusted (docs/DESIGN.md §5.16): a kept plain run is reused only while plain
steps still take what they took when it was kept; a speedup that the race's own rounds cannot explain is not shown as
measured; a speedup inside the race's measured noise, or from a race in which nothing was drafted, reads as level.

Pure functions of times and rounds (seconds), so the page, the CLI and a replayed trace say the same."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Sequence

from .stats import EVEN_BAND

#: Plain tokens timed before a kept run is reused (after an untimed warm-up of the same size).
PROBE_TOKENS = 12
#: A kept run older than this is never reused (seconds), whatever its steps say.
MAX_KEPT_AGE = 600.0
#: The smallest change in plain step time that makes a kept run stale (relative); the measured spread may widen it.
MIN_STALE = 0.15
#: The widest change in plain step time still read as noise (relative; a factor of 1 + this either way).
MAX_STALE = 1.0
#: A verify pass over a round's drafts is at least one plain step of the same model on the same machine; below this
#: share of plain's step, the two sides did not run on the same machine state (relative).
MIN_VERIFY_SHARE = 0.7
#: The widest band read as level (relative): beyond it the noise says the machine was too unsteady to call.
MAX_NOISE_BAND = 0.25


def steps(token_times: Sequence[float]) -> list[float]:
    """Seconds between successive tokens after the first (the first includes the prompt's pass); tokens that share a
    time (one round) are one step."""
    times = sorted(set(float(t) for t in token_times))
    return [b - a for a, b in zip(times, times[1:]) if b > a]


def spread(values: Sequence[float]) -> float:
    """The interquartile range over the median (0 for fewer than 4 values)."""
    if len(values) < 4:
        return 0.0
    q = statistics.quantiles(values, n=4)
    middle = statistics.median(values)
    return (q[2] - q[0]) / middle if middle > 0 else 0.0


@dataclass(frozen=True)
class KeptCheck:
    """The check of a kept plain run before a fair race reuses it. kept_step / now_step: median plain step (s) of
    the kept run and of the probe just timed; noise: the relative change allowed; age: seconds since it was kept."""

    reused: bool
    reason: str
    kept_step: float | None = None
    now_step: float | None = None
    noise: float = MIN_STALE
    age: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        ms = lambda s: None if s is None else round(s * 1e3, 3)  # noqa: E731
        return {"reused": self.reused, "reason": self.reason, "kept_step_ms": ms(self.kept_step),
                "now_step_ms": ms(self.now_step), "noise": round(self.noise, 4), "age_seconds": round(self.age, 1)}


def check_kept(kept_times: Sequence[float], probe_times: Sequence[float], age: float) -> KeptCheck:
    """Whether a kept plain run (its token times, s) is still true now, given `probe_times` (token times of a plain
    run of the same setup just timed) and its `age` (s)."""
    if age > MAX_KEPT_AGE:
        return KeptCheck(False, f"plain's kept run was {age / 60:.0f} min old (the limit is "
                                f"{MAX_KEPT_AGE / 60:.0f} min): plain ran again", age=age)
    now, kept = steps(probe_times), steps(kept_times)[:PROBE_TOKENS]
    if len(now) < 3 or len(kept) < 3:
        return KeptCheck(False, "too few plain steps to compare with the kept run: plain ran again", age=age)
    now_step, kept_step = statistics.median(now), statistics.median(kept)
    noise = min(MAX_STALE, max(MIN_STALE, 2 * spread(now)))
    ratio = now_step / kept_step if kept_step > 0 else math.inf
    if not 1 / (1 + noise) <= ratio <= 1 + noise:  # as far off either way, in ratio
        return KeptCheck(False, f"plain steps take {now_step * 1e3:.1f} ms now against {kept_step * 1e3:.1f} ms when "
                                f"its run was kept ({ratio - 1:+.0%}, beyond this machine's noise of "
                                f"\u00b1{noise:.0%}): plain ran again", kept_step, now_step, noise, age)
    return KeptCheck(True, f"plain steps take {now_step * 1e3:.1f} ms now, as when its run was kept "
                           f"({kept_step * 1e3:.1f} ms, within \u00b1{noise:.0%})", kept_step, now_step, noise, age)


def unexplained(result: Any) -> str | None:
    """Why a sequential race's speedup is not a measurement, or None: the target verified its rounds faster than
    plain decoding stepped, which only a change in the machine's load between the two sides produces."""
    plain = steps(result.baseline.token_times)
    verify = [r.verify_seconds for r in result.assisted.rounds[1:] if r.verify_seconds > 0]
    if result.mode != "sequential" or len(plain) < 3 or len(verify) < 3:
        return None
    plain_step, verify_step = statistics.median(plain), statistics.median(verify)
    if verify_step >= MIN_VERIFY_SHARE * plain_step:
        return None
    return (f"not a measurement: the target verified a round in {verify_step * 1e3:.1f} ms while plain's steps took "
            f"{plain_step * 1e3:.1f} ms, so the machine was not the same for both sides; race again")


def noise_band(result: Any) -> float:
    """How far from 1 a speedup must be to read as faster or slower (relative): half the spread of plain's own steps,
    at least EVEN_BAND and at most MAX_NOISE_BAND."""
    return min(MAX_NOISE_BAND, max(EVEN_BAND, spread(steps(result.baseline.token_times)) / 2))


@dataclass(frozen=True)
class Verdict:
    """What a race's speedup says. kind: "win", "loss", "even" (level) or "unmeasured"; reason: why, in words (empty
    for a plain win or loss); band: the relative noise band used."""

    kind: str
    reason: str
    band: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "noise_band": round(self.band, 4)}


def verdict(result: Any) -> Verdict:
    """The one verdict on `result`'s speedup that the headline, the status line, the CLI and a replay all show."""
    band = noise_band(result)
    why = unexplained(result)
    if why:
        return Verdict("unmeasured", why, band)
    if not any(r.drafted for r in result.assisted.rounds):
        return Verdict("even", "nothing was drafted, so both sides decoded plainly and the gap is the machine's noise",
                       band)
    change = result.speedup - 1
    if abs(change) <= band:
        return Verdict("even", f"within this race's noise (\u00b1{band:.0%}, from the spread of plain's steps)", band)
    return Verdict("win" if change > 0 else "loss", "", band)
