"""The "why" panel shown after each race (docs/DESIGN.md §5.13): the verdict, acceptance by draft position against
the break-even, where the assisted time went and the measured costs; a speedup below 1 reads as a slowdown."""

from __future__ import annotations

from typing import Any

from ..race.methods import METHODS
from ..race.result import RaceResult
from ..race.stats import speedup_verdict
from .html import esc

#: Draft positions shown in the acceptance-by-position bars.
MAX_POSITIONS = 16


def speedup_words(speedup: float, verdict: Any = None) -> tuple[str, str]:
    """('1.77× faster', 'win') / ('0.81× — slower than plain', 'loss') / ('1.00× — level with plain', 'even') /
    ('10.40× — not a measurement', 'unmeasured'). verdict: the race's own (app/race/trust.py ``Verdict``), which
    reads a gap inside its noise, or a race with no draft, as level; without it, the fixed band of
    ``speedup_verdict``."""
    kind = verdict.kind if verdict is not None else speedup_verdict(speedup)
    words = {"win": "faster", "loss": "\u2014 slower than plain", "even": "\u2014 level with plain",
             "unmeasured": "\u2014 not a measurement"}[kind]
    return f"{speedup:.2f}\u00d7 {words}", kind


#: Below this break-even acceptance drafting costs about nothing here: any accepted draft pays.
FREE = 0.005


def _break_even_key(break_even: float | None) -> str:
    if break_even is None:
        return ""
    if break_even < FREE:
        return '<div class="why-note">Drafting costs about nothing here, so any accepted draft pays.</div>'
    return (f'<div class="why-keys"><span><i class="why-key-line"></i>break-even: drafting pays when more than '
            f'{break_even:.0%} of drafts are accepted</span></div>')


def positions_html(result: RaceResult, break_even: float | None) -> str:
    """Acceptance by draft position: bars on a 0-100% scale, the positions below, the break-even line (its words
    in a key under the figure, clear of the bars and labels)."""
    shares = result.assisted.acceptance_by_position[:MAX_POSITIONS]
    if not shares:
        return '<div class="why-empty">No round drafted anything, so there is no acceptance to show.</div>'
    counts = [sum(r.drafted > k for r in result.assisted.rounds) for k in range(len(shares))]
    bars = []
    for k, (share, n) in enumerate(zip(shares, counts)):
        cls = "why-bar-low" if break_even is not None and share < break_even else "why-bar-ok"
        bars.append(f'<div class="why-bar {cls}" title="draft position {k + 1}: {share:.0%} of {n} drafts accepted">'
                    f'<span style="height:{max(2.0, 100 * share):.0f}%"></span></div>')
    line = (f'<div class="why-line" style="bottom:{100 * break_even:.0f}%" title="break-even acceptance"></div>'
            if break_even is not None and break_even >= FREE else "")
    axis = "".join(f'<span style="bottom:{v}%">{v}%</span>' for v in (100, 50, 0))
    positions = "".join(f"<i>{k + 1}</i>" for k in range(len(shares)))
    return (f'<div class="why-fig-title">Acceptance by draft position</div>'
            f'<div class="why-plot"><div class="why-axis" aria-hidden="true">{axis}</div>'
            f'<div class="why-bars">{"".join(bars)}{line}</div></div>'
            f'<div class="why-xs" aria-hidden="true">{positions}</div>'
            '<div class="why-note">draft position in a round (1 = first drafted token); bar: share of the drafts there '
            f'that the target accepted</div>{_break_even_key(break_even)}')


def _time_html(result: RaceResult, why: Any) -> str:
    total = result.assisted.seconds or 1e-9
    parts = [("draft", why.draft_seconds), ("verify", why.verify_seconds), ("other", why.other_seconds)]
    segs = "".join(f'<span class="why-seg why-seg-{name}" style="width:{100 * sec / total:.1f}%" '
                   f'title="{name}: {sec:.2f} s ({sec / total:.0%})"></span>' for name, sec in parts if sec > 0)
    keys = "".join(f'<span><i class="why-key why-seg-{name}"></i>{name} {sec:.2f} s</span>' for name, sec in parts)
    base = result.baseline.seconds
    return (f'<div class="why-fig-title">Where the assisted time went ({total:.2f} s; plain: {base:.2f} s)</div>'
            f'<div class="why-stack">{segs}</div><div class="why-keys">{keys}</div>')


def _numbers_html(result: RaceResult, why: Any) -> str:
    def item(label: str, value: str, tip: str) -> str:
        return f'<div class="why-num" title="{esc(tip)}"><b>{esc(value)}</b><span>{esc(label)}</span></div>'

    fmt = lambda x, f: "\u2013" if x is None else "\u2248 0" if abs(x) < FREE / 10 else format(x, f)  # noqa: E731
    items = [item("one target step", f"{why.step_seconds * 1e3:.1f} ms" if why.step_seconds else "\u2013",
                  "the baseline's time per token after the first"),
             item("cost ratio c", fmt(why.cost_ratio, ".3f"), "drafting time per drafted token / one target step"
                  + ("; copying from the prompt costs about nothing" if _copies(result) else "")),
             item("verify cost per extra token", fmt(why.verify_slope, ".3f"),
                  "the extra share of a step each verified draft costs (about 0 on a GPU)"),
             item("break-even acceptance", fmt(why.break_even_acceptance, ".0%"),
                  "drafting pays off above this acceptance at this draft length, on this hardware")]
    a = result.assisted
    if a.draft_policy == "cost-aware":
        items.append(item("rounds that drafted", f"{sum(r.drafted > 0 for r in a.rounds)} of {len(a.rounds)}",
                          f"the cost-aware policy skipped drafting in {a.skipped_rounds} rounds"))
    return f'<div class="why-nums">{"".join(items)}</div>{_copy_note(result, why)}'


def _copies(result: RaceResult) -> bool:
    """The method drafts by copying from the prompt (prompt lookup)."""
    return result.method in METHODS and METHODS[result.method].drafts_from_prompt


def _copy_note(result: RaceResult, why: Any) -> str:
    """Why prompt lookup's c is about 0 while verifying takes most of the time (docs/DESIGN.md §5.13)."""
    if not _copies(result) or why.cost_ratio is None:
        return ""
    total = result.assisted.seconds or 1e-9
    slope = why.verify_slope
    if slope is None:
        more = ""
    elif slope < FREE:
        more = " Checking a longer draft costs about as much as checking one token here."
    else:
        more = f" Each extra copied token makes the check {slope:.3f} of a step longer, which the copies must repay."
    c = "c \u2248 0" if why.cost_ratio < FREE / 10 else f"c = {why.cost_ratio:.3f}"
    return ('<div class="why-note why-copy">Prompt lookup copies its drafts from the prompt, so drafting is free '
            f'({c}) and the cost is verifying: {why.verify_seconds:.2f} of {total:.2f} s went '
            'to the target\u2019s passes, one per round, each the pass plain decoding makes for every token. A round '
            f'that keeps k copied tokens saves k passes.{more}</div>')


def why_panel_html(result: RaceResult | None) -> str:
    """The panel for a finished race (an empty hint before the first)."""
    if result is None or result.why is None:
        return '<div class="why why-empty">After a race: why it was faster or slower, and what to try.</div>'
    why = result.why
    words, kind = speedup_words(result.speedup)
    label = "measured sequentially" if result.mode == "sequential" else "concurrent race"
    return (f'<div class="why why-{kind}" role="region" aria-label="why this result">'
            f'<div class="why-head"><span class="why-speed speed-{kind}">{esc(words)}</span>'
            f'<span class="why-mode">{esc(label)}</span></div>'
            f'<div class="why-verdict">{esc(why.verdict)}</div>'
            f'<div class="why-figs"><div class="why-fig">{positions_html(result, why.break_even_acceptance)}</div>'
            f'<div class="why-fig">{_time_html(result, why)}{_numbers_html(result, why)}</div></div></div>')
