"""HTML of the Race tab's sampling check (pure functions, no gradio): the verdict and the per-position table."""

from __future__ import annotations

from typing import Any

from ..core.words import t, translate
from .html import esc


def empty_html() -> str:
    return f'<div class="stats-empty" id="check-empty">{esc(t("check.intro"))}</div>'


def _top(items: list[dict[str, Any]]) -> str:
    return ", ".join(f"{esc(repr(x['text']))} {x['plain']:.2f}/{x['assisted']:.2f}" for x in items[:3])


def _label(label: str) -> str:
    """A compared position's label ("token 1", "tokens 1-2") in the current language."""
    if label.startswith("tokens "):
        return t("check.tokens", which=label[len("tokens "):])
    if label.startswith("token "):
        return t("check.token", which=label[len("token "):])
    return label


def _row(item: dict[str, Any]) -> str:
    cls = "num neg" if item["different"] else "num"
    title = esc(t("check.row_tip", categories=item["categories"], level=f"{item['level']:.2g}"))
    return (f'<tr title="{title}"><td>{esc(_label(item["label"]))}</td><td class="{cls}">{item["tv_distance"]:.3f}</td>'
            f'<td class="{cls}">{item["p_value"]:.4f}</td><td class="num">{item["min_detectable_tv"]:.3f}</td>'
            f'<td>{_top(item["top"])}</td></tr>')


def check_html(result: dict[str, Any]) -> str:
    """The verdict badge, the table (TV, p-value, smallest detectable TV, most frequent tokens plain/assisted per
    position and for the first two jointly), the assisted side's drafting and the time; `result` is the check's
    ``to_dict()``."""
    same = result["verdict"] == "same"
    badge = (f'<span class="badge {"badge-identical" if same else "badge-unexpected"}">'
             f'{esc(t("check.same" if same else "check.different"))}</span>'
             f'<span class="badge-why">{esc(translate(result["verdict_text"]))}</span>')
    rows = "".join(_row(item) for item in result["positions"] + ([result["joint"]] if result["joint"] else []))
    head = "".join(f"<th>{esc(t(f'check.col.{c}'))}{sub}</th>" for c, sub in (
        ("compared", ""), ("tv", ""), ("p", ""), ("detectable", f"<span>{esc(t('check.col.at_n'))}</span>"),
        ("frequent", f"<span>{esc(t('check.col.sides'))}</span>")))
    table = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr>{head}</tr></thead>'
             f'<tbody>{rows}</tbody></table></div>')
    rate = t("figures.na") if result["acceptance_rate"] is None else f"{result['acceptance_rate']:.0%}"
    foot = t("check.foot", samples=result["samples"], temperature=f"{result['temperature']:g}",
             top_p=f"{result['top_p']:g}", top_k=result["top_k"], seed=result["seed"],
             drafted=result["assisted_drafted"], rate=rate, seconds=f"{result['seconds']:.0f}",
             alpha=f"{result['alpha']:g}", comparisons=len(result["positions"]) + (1 if result["joint"] else 0))
    warning = (f'<div class="status status-error">{esc(t("check.note", warning=translate(result["warning"])))}</div>'
               if result["warning"] else "")
    return (f'<div class="stats" id="check-result"><div class="stats-badge">{badge}</div>{table}{warning}'
            f'<div class="stats-foot">{esc(foot)}</div></div>')
