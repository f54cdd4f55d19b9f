"""Whether a measured speedup can be trusted (docs/DESIGN.md §5.16): the measurement check every race kind runs.

- A kept plain run is reused only while plain steps still take what they took when it was kept (checked after the
  race, so the check never holds back the assisted side).
- The two sides ran on the same machine state, by measurement (:class:`Conditions`): in-process, each side's share of
  the CPU it asked for (process time over wall time); on a serving engine, plain's decode step during the race against
  a short plain probe right after the assisted side.
- A speedup that the race's own rounds cannot explain is not a measurement.
- One stated limit, :data:`MEASURE_LIMIT`, bounds the noise band, the gap between the two sides' conditions and the
  band a kept run is reused within: beyond it the machine is too busy to measure, never "within noise".

Pure functions of times and rounds (seconds), so the page, the CLI and a replayed trace say the same. The verdict
itself, which reads these checks, is app/race/verdict.py."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Sequence

from .stats import EVEN_BAND
from ..core.words import msg

#: Plain tokens timed to check a kept run (after the assisted side) and to probe an engine's plain side.
PROBE_TOKENS = 12
#: A kept run older than this is never reused (seconds), whatever its steps say.
MAX_KEPT_AGE = 600.0
#: The widest noise a measurement may have (relative, either way): the noise band of a race, the gap between the two
#: sides' measured conditions and the band a kept plain run is reused within. Beyond it the machine is too busy to
#: measure this now.
MEASURE_LIMIT = 0.25
#: The smallest change in plain step time that makes a kept run stale (relative); the measured spread may widen it.
MIN_STALE = 0.15
#: The widest change in plain step time still read as noise when checking a kept run (relative): the stated limit.
MAX_STALE = MEASURE_LIMIT
#: A verify pass over a round's drafts is at least one plain step of the same model on the same machine; below this
#: share of plain's step, the two sides did not run on the same machine state (relative).
MIN_VERIFY_SHARE = 0.7
#: What a "cpu_share" condition compares: each side's process CPU seconds over its wall seconds x its torch threads.
CPU_SHARE = "cpu_share"
#: What a "plain_step" condition compares (an engine race): plain's decode step (ms) during the race (``baseline``)
#: and in a short plain probe right after the assisted side (``assisted``).
PLAIN_STEP = "plain_step"


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


def gap(a: float | None, b: float | None) -> float | None:
    """How far apart two positive figures are, relative: the larger over the smaller, minus 1 (None if either is
    missing or not positive)."""
    if a is None or b is None or a <= 0 or b <= 0:
        return None
    return max(a, b) / min(a, b) - 1


@dataclass(frozen=True)
class Conditions:
    """How the machine treated the two sides, measured. what: :data:`CPU_SHARE` (in-process: each side's process CPU
    seconds over wall seconds x threads, 1.0 = all the CPU it asked for) or :data:`PLAIN_STEP` (an engine: plain's
    decode step in ms during the race as ``baseline``, in a plain probe right after the assisted side as
    ``assisted``); judged: whether the gap decides the verdict (a CPU share on a GPU is recorded, not judged);
    failure: why a figure could not be measured (one line; the race is then unchecked, so no measurement)."""

    what: str
    baseline: float | None
    assisted: float | None
    judged: bool = True
    failure: str | None = None

    @property
    def gap(self) -> float | None:
        return gap(self.baseline, self.assisted)

    def to_dict(self) -> dict[str, Any]:
        r = lambda x: None if x is None else round(x, 4)  # noqa: E731
        return {"what": self.what, "baseline": r(self.baseline), "assisted": r(self.assisted), "gap": r(self.gap),
                "judged": self.judged, "failure": self.failure}

    @classmethod
    def from_dict(cls, data: Any) -> "Conditions | None":
        """Read back (None for anything that is not a conditions object)."""
        if not isinstance(data, dict) or data.get("what") not in (CPU_SHARE, PLAIN_STEP):
            return None
        number = lambda x: float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None  # noqa: E731
        failure = data.get("failure") if isinstance(data.get("failure"), str) else None
        return cls(data["what"], number(data.get("baseline")), number(data.get("assisted")),
                   bool(data.get("judged", True)), failure)


def conditions_differ(conditions: Conditions | None) -> str | None:
    """Why the two sides did not run under the same conditions (beyond :data:`MEASURE_LIMIT`), or could not be
    compared (a probe that failed), or None."""
    if conditions is not None and conditions.judged and conditions.failure:
        message = conditions.failure
        return msg("the check of the conditions after the race failed ({message}); race again", message=message)
    if conditions is None or not conditions.judged or conditions.gap is None or conditions.gap <= MEASURE_LIMIT:
        return None
    c, apart, limit = conditions, f"{conditions.gap:.0%}", f"\u00b1{MEASURE_LIMIT:.0%}"
    if c.what == CPU_SHARE:
        return (msg("the machine was not the same for both sides: plain got {baseline} of the CPU it asked for, assisted "
                    "{assisted} ({apart} apart, the limit is {limit}); race again", baseline=f"{c.baseline:.0%}",
                    assisted=f"{c.assisted:.0%}", apart=apart, limit=limit))
    return (msg("the engine's machine changed between the sides: plain decoded a token in {baseline} ms during the race and "
                "in {assisted} ms right after the assisted side ({apart} apart, the limit is {limit}); race again",
                baseline=f"{c.baseline:.1f}", assisted=f"{c.assisted:.1f}", apart=apart, limit=limit))


@dataclass(frozen=True)
class KeptCheck:
    """The check of a kept plain run that a fair race raced (timed after its assisted side). kept_step / now_step:
    median plain step (s) of the kept run and of the probe just timed; noise: the relative change allowed; age:
    seconds since it was kept."""

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


def too_old(age: float) -> KeptCheck | None:
    """The check's answer when a kept run is too old to race at all (before the race), else None."""
    if age <= MAX_KEPT_AGE:
        return None
    return KeptCheck(False, msg("plain's kept run was {age} min old (the limit is {MAX_KEPT_AGE} min): plain ran again",
                                age=f"{age / 60:.0f}", MAX_KEPT_AGE=f"{MAX_KEPT_AGE / 60:.0f}"), age=age)


def failed_check(message: str, age: float) -> KeptCheck:
    """The check's answer when timing the probe itself failed (`message`: one line): the kept run is not trusted."""
    return KeptCheck(False, msg("the check of plain's kept run failed ({message}): it was dropped, so the next race times "
                                "plain again", message=message), age=age)


def check_kept(kept_times: Sequence[float], probe_times: Sequence[float], age: float) -> KeptCheck:
    """Whether a kept plain run (its token times, s) is still true now, given `probe_times` (token times of a plain
    run of the same setup just timed) and its `age` (s). The two medians may differ by 2 x the probe's spread, at
    least MIN_STALE and at most MAX_STALE (the stated limit); a probe whose own noise band (half its spread, as a
    race's) is beyond the limit means the machine is too busy to tell."""
    old = too_old(age)
    if old is not None:
        return old
    now, kept = steps(probe_times), steps(kept_times)[:PROBE_TOKENS]
    if len(now) < 3 or len(kept) < 3:
        return KeptCheck(False, msg("too few plain steps to compare with the kept run: it was dropped, so the next race times "
                                    "plain again"), age=age)
    now_step, kept_step = statistics.median(now), statistics.median(kept)
    band = spread(now) / 2  # the probe's noise band, as a race's (noise_band)
    if band > MAX_STALE:
        return KeptCheck(False, msg("plain's steps vary \u00b1{band} now (the limit is \u00b1{MAX_STALE}): the machine is too "
                                    "busy to check the kept run; it was dropped, so the next race times plain again",
                                    band=f"{band:.0%}", MAX_STALE=f"{MAX_STALE:.0%}"), kept_step, now_step, band, age)
    noise = min(MAX_STALE, max(MIN_STALE, 2 * spread(now)))
    ratio = now_step / kept_step if kept_step > 0 else math.inf
    if not 1 / (1 + noise) <= ratio <= 1 + noise:  # as far off either way, in ratio
        return KeptCheck(False, msg("plain steps take {now_step} ms now against {kept_step} ms when its run was kept "
                                    "({ratio}, beyond this machine's noise of \u00b1{noise}): the kept run was dropped, so "
                                    "the next race times plain again", now_step=f"{now_step * 1e3:.1f}",
                                    kept_step=f"{kept_step * 1e3:.1f}", ratio=f"{ratio - 1:+.0%}", noise=f"{noise:.0%}"),
                         kept_step, now_step, noise, age)
    return KeptCheck(True, msg("plain steps take {now_step} ms now, as when its run was kept ({kept_step} ms, within "
                               "\u00b1{noise})", now_step=f"{now_step * 1e3:.1f}", kept_step=f"{kept_step * 1e3:.1f}",
                               noise=f"{noise:.0%}"), kept_step, now_step, noise, age)


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
    return (msg("the target verified a round in {verify_step} ms while plain's steps took {plain_step} ms, so the machine was "
                "not the same for both sides; race again", verify_step=f"{verify_step * 1e3:.1f}",
                plain_step=f"{plain_step * 1e3:.1f}"))


def noise_band(result: Any) -> float:
    """How far from 1 a speedup must be to read as faster or slower (relative), at least EVEN_BAND. In-process: half
    the spread of plain's own steps. An engine race (a :data:`PLAIN_STEP` condition): the gap between its two plain
    measurements, which is the noise of timing plain on that machine. Not capped: a band beyond MEASURE_LIMIT makes the
    race no measurement (app/race/verdict.py)."""
    conditions = getattr(result, "conditions", None)
    if conditions is not None and conditions.what == PLAIN_STEP:
        return max(EVEN_BAND, conditions.gap or 0.0)
    return max(EVEN_BAND, spread(steps(result.baseline.token_times)) / 2)
