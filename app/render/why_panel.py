"""The "why" panel shown after each race (docs/DESIGN.md §5.13): the verdict, acceptance by draft position against
the break-even, where the assisted time went and the measured costs; a speedup below 1 reads as a slowdown."""

from __future__ import annotations

from typing import Any

from ..core.words import t, translate
from ..race.methods import METHODS
from ..race.result import RaceResult
from .html import esc

#: Draft positions shown in the acceptance-by-position bars.
MAX_POSITIONS = 16


def speedup_words(verdict: Any) -> tuple[str, str]:
    """('1.77× faster', 'win') / ('0.81× — slower than plain', 'loss') / ('1.00× — level with plain', 'level') /
    ('10.40× — not a measurement', 'unmeasured'), in the current language, from the race's one verdict
    (app/race/verdict.py ``Verdict``: its kind and its speedup) and nothing else."""
    return t(f"why.speed.{verdict.kind}", speedup=f"{verdict.speedup:.2f}"), verdict.kind


def why_words(why: Any) -> str:
    """The explanation of a race in the current language (its words: a message joining its sentences, each
    translated whole; app/race/why.py)."""
    return translate(why.verdict)


#: Below this break-even acceptance drafting costs about nothing here: any accepted draft pays.
FREE = 0.005


def _break_even_key(break_even: float | None) -> str:
    if break_even is None:
        return ""
    if break_even < FREE:
        return f'<div class="why-note">{esc(t("why.free"))}</div>'
    return (f'<div class="why-keys"><span><i class="why-key-line"></i>'
            f'{esc(t("why.break_even_key", share=f"{break_even:.0%}"))}</span></div>')


def positions_html(result: RaceResult, break_even: float | None) -> str:
    """Acceptance by draft position: bars on a 0-100% scale, the positions below, the break-even line (its words
    in a key under the figure, clear of the bars and labels)."""
    shares = result.assisted.acceptance_by_position[:MAX_POSITIONS]
    if not shares:
        return f'<div class="why-empty">{esc(t("why.no_drafts"))}</div>'
    counts = [sum(r.drafted > k for r in result.assisted.rounds) for k in range(len(shares))]
    bars = []
    for k, (share, n) in enumerate(zip(shares, counts)):
        cls = "why-bar-low" if break_even is not None and share < break_even else "why-bar-ok"
        tip = t("why.bar_tip", position=k + 1, share=f"{share:.0%}", drafts=n)
        bars.append(f'<div class="why-bar {cls}" title="{esc(tip)}">'
                    f'<span style="height:{max(2.0, 100 * share):.0f}%"></span></div>')
    line = (f'<div class="why-line" style="bottom:{100 * break_even:.0f}%" title="{esc(t("why.break_even"))}"></div>'
            if break_even is not None and break_even >= FREE else "")
    axis = "".join(f'<span style="bottom:{v}%">{v}%</span>' for v in (100, 50, 0))
    positions = "".join(f"<i>{k + 1}</i>" for k in range(len(shares)))
    return (f'<div class="why-fig-title">{esc(t("why.positions_title"))}</div>'
            f'<div class="why-plot"><div class="why-axis" aria-hidden="true">{axis}</div>'
            f'<div class="why-bars">{"".join(bars)}{line}</div></div>'
            f'<div class="why-xs" aria-hidden="true">{positions}</div>'
            f'<div class="why-note">{esc(t("why.positions_note"))}</div>{_break_even_key(break_even)}')


def _time_html(result: RaceResult, why: Any) -> str:
    total = result.assisted.seconds or 1e-9
    parts = [("draft", why.draft_seconds), ("verify", why.verify_seconds), ("other", why.other_seconds)]
    segs = "".join(f'<span class="why-seg why-seg-{name}" style="width:{100 * sec / total:.1f}%" '
                   f'title="{esc(t("why.part." + name))}: {sec:.2f} s ({sec / total:.0%})"></span>'
                   for name, sec in parts if sec > 0)
    keys = "".join(f'<span><i class="why-key why-seg-{name}"></i>{esc(t("why.part." + name))} {sec:.2f} s</span>'
                   for name, sec in parts)
    title = t("why.time_title", total=f"{total:.2f}", plain=f"{result.baseline.seconds:.2f}")
    return (f'<div class="why-fig-title">{esc(title)}</div>'
            f'<div class="why-stack">{segs}</div><div class="why-keys">{keys}</div>')


def _numbers_html(result: RaceResult, why: Any) -> str:
    def item(key: str, value: str, tip: str) -> str:
        return f'<div class="why-num" title="{esc(tip)}"><b>{esc(value)}</b><span>{esc(t(key))}</span></div>'

    fmt = lambda x, f: "\u2013" if x is None else "\u2248 0" if abs(x) < FREE / 10 else format(x, f)  # noqa: E731
    items = [item("why.step", f"{why.step_seconds * 1e3:.1f} ms" if why.step_seconds else "\u2013", t("why.step_tip")),
             item("why.cost_ratio", fmt(why.cost_ratio, ".3f"),
                  t("why.cost_ratio_copy_tip" if _copies(result) else "why.cost_ratio_tip")),
             item("why.verify_slope", fmt(why.verify_slope, ".3f"), t("why.verify_slope_tip")),
             item("why.break_even_acceptance", fmt(why.break_even_acceptance, ".0%"), t("why.break_even_tip"))]
    a = result.assisted
    if a.draft_policy == "cost-aware":
        items.append(item("why.drafted_rounds", t("why.rounds_of", drafted=sum(r.drafted > 0 for r in a.rounds),
                                                 rounds=len(a.rounds)),
                          t("why.skipped_tip", skipped=a.skipped_rounds)))
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
        more = " " + t("why.copy_flat")
    else:
        more = " " + t("why.copy_slope", slope=f"{slope:.3f}")
    c = "c \u2248 0" if why.cost_ratio < FREE / 10 else f"c = {why.cost_ratio:.3f}"
    note = t("why.copy_note", c=c, verify=f"{why.verify_seconds:.2f}", total=f"{total:.2f}")
    return f'<div class="why-note why-copy">{esc(note + more)}</div>'


def mode_label(mode: str, measured: bool = True) -> str:
    """How a race was run, in words: 'measured in a fair race', 'a fair race, not a measurement' (a fair race that is no
    measurement) or 'both at once'."""
    if mode != "sequential":
        return t("why.mode.concurrent")
    return t("why.mode.sequential" if measured else "why.mode.sequential_unmeasured")


def why_panel_html(result: RaceResult | None) -> str:
    """The panel for a finished race (an empty hint before the first)."""
    if result is None or result.why is None:
        return f'<div class="why why-empty">{esc(t("why.empty"))}</div>'
    why, verdict = result.why, result.verdict
    words, kind = speedup_words(verdict)
    return (f'<div class="why why-{kind}" role="region" aria-label="{esc(t("why.aria"))}">'
            f'<div class="why-head"><span class="why-speed speed-{kind}">{esc(words)}</span>'
            f'<span class="why-mode">{esc(mode_label(result.mode, verdict.measured))}</span></div>'
            f'<div class="why-verdict">{esc(why_words(why))}</div>'
            f'<div class="why-figs"><div class="why-fig">{positions_html(result, why.break_even_acceptance)}</div>'
            f'<div class="why-fig">{_time_html(result, why)}{_numbers_html(result, why)}</div></div></div>')
