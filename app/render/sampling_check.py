"""HTML of the Race tab's sampling check (pure functions, no gradio): the verdict and the per-position table."""

from __future__ import annotations

from typing import Any

from .html import esc

INTRO = ("Samples many continuations plainly and with the method (sampling, each with its own seed) and tests whether "
         "the distribution of each of the first tokens, and of the first two together, differs. A lossless method "
         "keeps the target's distribution; a lossy one (ensemble) changes it.")


def empty_html() -> str:
    return f'<div class="stats-empty" id="check-empty">{esc(INTRO)}</div>'


def _top(items: list[dict[str, Any]]) -> str:
    return ", ".join(f"{esc(repr(t['text']))} {t['plain']:.2f}/{t['assisted']:.2f}" for t in items[:3])


def _row(item: dict[str, Any]) -> str:
    cls = "num neg" if item["different"] else "num"
    title = esc(f"{item['categories']} categories (rare tokens pooled); tested at p <= {item['level']:.2g}")
    return (f'<tr title="{title}"><td>{esc(item["label"])}</td><td class="{cls}">{item["tv_distance"]:.3f}</td>'
            f'<td class="{cls}">{item["p_value"]:.4f}</td><td class="num">{item["min_detectable_tv"]:.3f}</td>'
            f'<td>{_top(item["top"])}</td></tr>')


def check_html(result: dict[str, Any]) -> str:
    """The verdict badge, the table (TV, p-value, smallest detectable TV, most frequent tokens plain/assisted per
    position and for the first two jointly), the assisted side's drafting and the time; `result` is the check's
    ``to_dict()``."""
    same = result["verdict"] == "same"
    badge = (f'<span class="badge {"badge-identical" if same else "badge-unexpected"}">'
             f'{"Same distribution" if same else "Different distribution"}</span>'
             f'<span class="badge-why">{esc(result["verdict_text"])}</span>')
    rows = "".join(_row(item) for item in result["positions"] + ([result["joint"]] if result["joint"] else []))
    table = ('<div class="plan-scroll"><table class="plan-table"><thead><tr><th>compared</th><th>TV</th><th>p-value</th>'
             '<th>detectable TV<span>at this N</span></th><th>most frequent<span>plain / assisted</span></th></tr>'
             f'</thead><tbody>{rows}</tbody></table></div>')
    rate = "n/a" if result["acceptance_rate"] is None else f"{result['acceptance_rate']:.0%}"
    foot = (f'{result["samples"]} samples a side, temperature {result["temperature"]:g}, top-p {result["top_p"]:g}, '
            f'top-k {result["top_k"]}, seed {result["seed"]}; assisted drafted {result["assisted_drafted"]} tokens, '
            f'accepted {rate}; {result["seconds"]:.0f} s. Each comparison is tested at '
            f'{result["alpha"]:g} / {len(result["positions"]) + (1 if result["joint"] else 0)}, so a lossless method is '
            'called different at most 1 time in 100. Marginals per position and the joint of the first two are '
            'compared: later tokens depend on earlier ones.')
    warning = f'<div class="status status-error">{esc("Note: " + result["warning"])}</div>' if result["warning"] else ""
    return (f'<div class="stats" id="check-result"><div class="stats-badge">{badge}</div>{table}{warning}'
            f'<div class="stats-foot">{esc(foot)}</div></div>')
