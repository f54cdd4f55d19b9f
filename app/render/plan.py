"""HTML of the Planner tab: pure functions of a :class:`~app.planner.types.Plan`, no gradio. The page's own words
come from the tables (``plan.`` keys, :func:`~app.core.words.t`); the planner's sentences (app/planner writes them
in English, the JSON's language) are shown through :func:`~app.core.words.translate`; every text from a user, a
model or a preset is escaped, and numbers read as the CLI's (app/planner/report.py)."""

from __future__ import annotations

from typing import Sequence

from ..core.words import t, translate
from ..planner.check import CheckRun
from ..planner.memory import PairMemory
from ..planner.report import check_runs
from ..planner.types import Plan
from .charts import swatch
from .html import esc as _e
from .plan_chart import ADJUSTED, MEASURED, PREDICTED, speedup_svg


def _section(title: str, body: str, cls: str = "", note: str = "") -> str:
    foot = f'<div class="plan-note">{_e(note)}</div>' if note else ""
    return f'<div class="plan-card {cls}"><div class="plan-card-title">{_e(title)}</div>{body}{foot}</div>'


def empty_html(title: str, text: str) -> str:
    """A placeholder card: what this section will show once there is a plan."""
    return _section(title, f'<div class="plan-empty">{_e(text)}</div>')


def intro_html() -> str:
    """The tab's first lines: Theorem 3.8 in one formula, and the two ways to use the tab."""
    formula = ("(1 \u2212 \u03b1<sup>\u03b3+1</sup>) / ((1 \u2212 \u03b1)(\u03b3c + 1))")
    return (f'<div class="plan-intro"><b>{_e(t("plan.intro.title"))}</b> '
            + _e(t("plan.intro.text")).format(alpha="<i>\u03b1</i>", c="<i>c</i>", formula=formula) + "</div>")


def box_title_html(key: str) -> str:
    """The title of an input box (``plan.box.calculator``, ``plan.box.measure``)."""
    return f'<div class="plan-box-title">{_e(t(key))}</div>'


def progress_html(lines: Sequence[str], elapsed: float | None = None) -> str:
    """The measuring log: the newest line large, the earlier ones below (at most 8), with seconds elapsed; the
    planner's own lines in the visitor's language."""
    lines = [translate(str(x)) for x in lines if str(x).strip()]
    head = lines[-1] if lines else t("plan.starting")
    clock = f" \u00b7 {elapsed:.0f} s" if elapsed is not None else ""
    older = "".join(f"<li>{_e(x)}</li>" for x in lines[-9:-1])
    return (f'<div class="plan-progress" role="status"><span class="plan-spin"></span><b>{_e(head)}</b>{_e(clock)}'
            + (f'<ol class="plan-log">{older}</ol>' if older else "") + "</div>")


def _stat(label: str, value: str, note: str = "", cls: str = "", tip: str = "") -> str:
    title = f' title="{_e(tip)}"' if tip else ""
    return (f'<div class="plan-stat {cls}"{title}><div class="plan-stat-value">{_e(value)}</div>'
            f'<div class="plan-stat-label">{_e(label)}</div>'
            + (f'<div class="plan-stat-note">{_e(note)}</div>' if note else "") + "</div>")


def alpha_text(value: float | None) -> str:
    """An alpha to three decimals (as the CLI writes it), or the table's 'n/a'."""
    return t("plan.na") if value is None else f"{value:.3f}"


def _measured_stats(plan: Plan) -> list[str]:
    """The headline's measured figures: alpha by agreement and observed, c with its spread."""
    m = plan.measurement
    agreement, obs, c = m.alpha_seed, m.alpha_observed, m.c
    return [_stat(t("plan.stat.alpha_agreement"), alpha_text(agreement.value),
                  t("plan.stat.alpha_agreement_note", space=translate(agreement.space)), tip=translate(agreement.how)),
            _stat(t("plan.stat.alpha_observed"), alpha_text(obs.value) if obs else t("plan.na"),
                  t("plan.stat.alpha_observed_note", rate=f"{obs.acceptance_rate:.3f}", rounds=obs.drafting_rounds)
                  if obs else t("plan.stat.alpha_observed_none")),
            _stat(t("plan.stat.c_measured"), f"{c.value:.4f}",
                  t("plan.stat.c_note", low=f"{c.low:.4f}", high=f"{c.high:.4f}", draft=f"{c.draft_step_ms:.2f}",
                    target=f"{c.target_step_ms:.2f}"),
                  tip=t("plan.stat.c_tip", what=translate(c.what), repeats=c.repeats, steps=c.steps))]


def _engine_stats(plan: Plan) -> list[str]:
    """The headline's figures measured on a serving engine: alpha from its rounds, c from its step times."""
    e = plan.engine
    a, c = e.alpha_observed, e.c
    return [_stat(t("plan.stat.alpha_engine"), alpha_text(a.value),
                  t("plan.stat.alpha_observed_note", rate=alpha_text(a.acceptance_rate), rounds=a.drafting_rounds),
                  tip=t("plan.stat.alpha_engine_tip", source=e.status_source)),
            _stat(t("plan.stat.c_engine"), f"{c.value:.4f}",
                  t("plan.stat.c_engine_note", low=f"{c.low:.4f}", high=f"{c.high:.4f}",
                    plain=f"{c.plain_ms_per_token:.2f}", verify=f"{c.verify_ms_per_step:.2f}"), tip=translate(c.what))]


def _who(plan: Plan) -> str:
    """Method, models, device and what was measured, in one line (empty for a plan without models)."""
    m = plan.measurement or plan.engine
    if not plan.target:
        return ""
    return (f'<div class="plan-who">{_e(plan.method or "")} \u00b7 {_e(plan.target)}'
            + (f' + {_e(plan.assistant)}' if plan.assistant else "")
            + (f' \u00b7 {_e(plan.device)}' if plan.device else "")
            + (f' \u00b7 {_e(t("plan.who.measured", prompts=m.prompts, tokens=m.max_new_tokens))}' if m else "")
            + "</div>")


def headline_html(plan: Plan) -> str:
    """alpha (both ways), c with its spread, best gamma, predicted speedup and the plan's one verdict. A measured plan
    heads with the hardware-adjusted best gamma and speedup (what this machine pays for; the verdict below reads
    them), with Theorem 3.8's own figure on the line under it."""
    if plan.measurement:
        stats = _measured_stats(plan)
    elif plan.engine:
        stats = _engine_stats(plan)
    else:
        stats = [_stat(t("plan.stat.alpha_given"), f"{plan.alpha:.3f}", t("plan.stat.alpha_given_note")),
                 _stat(t("plan.stat.c_given"), f"{plan.c:.4f}", t("plan.stat.c_given_note"))]
    hw = plan.hardware_adjusted
    if hw:  # the headline's best gamma is the one this hardware pays for, as the verdict and the advice read it
        stats.append(_stat(t("plan.stat.best_gamma"), str(hw.best_gamma),
                           t("plan.stat.best_gamma_hw_note", c=f"{hw.c_effective:.4f}"), "plan-stat-gamma"))
        stats.append(_stat(t("plan.stat.speedup"), f"{hw.predicted_speedup:.2f}x",
                           t("plan.stat.speedup_note", alpha=f"{plan.alpha:.3f}", c=f"{hw.c_effective:.4f}"),
                           "plan-stat-speedup"))
        hw_line = '<div class="plan-hw">' + _e(t(
            "plan.theory_line", slope=f"{hw.verify_slope.value:.3f}", c=f"{plan.c:.4f}", gamma=plan.best_gamma,
            speedup=f"{plan.predicted_speedup:.2f}")) + "</div>"
    else:
        stats.append(_stat(t("plan.stat.best_gamma"), str(plan.best_gamma), t("plan.stat.best_gamma_note"),
                           "plan-stat-gamma"))
        stats.append(_stat(t("plan.stat.speedup"), f"{plan.predicted_speedup:.2f}x",
                           t("plan.stat.speedup_note", alpha=f"{plan.alpha:.3f}", c=f"{plan.c:.4f}"),
                           "plan-stat-speedup"))
        hw_line = ""
    mode = "measured" if plan.measured else "calculator"
    return (f'<div class="plan-headline">{_who(plan)}<div class="plan-stats">{"".join(stats)}</div>'
            f'{final_html(plan)}{hw_line}'
            f'<span class="plan-mode" data-mode="{mode}"></span></div>')


#: The plan's one verdict (app/planner/plan.py ``final_verdict``): its box class and its lead's key, by what it says.
FINAL = {"yes": ("plan-verdict-yes", "plan.final.yes"), "no": ("plan-verdict-no", "plan.final.no"),
         "level": ("plan-verdict-no", "plan.final.level"), "close": ("plan-verdict-close", "plan.final.close")}


def final_html(plan: Plan) -> str:
    """One verdict box: the measured races' verdict when the plan raced (the prediction below it, as a prediction),
    else the prediction's."""
    final = plan.final
    cls, lead = FINAL[final.pays]
    measured = final.source == "measured"
    source = t("plan.final.measured") if measured else t("plan.final.predicted")
    aside = (f'<div class="plan-prediction">{_e(t("plan.final.prediction_said", text=translate(final.prediction)))}'
             '</div>' if measured else "")
    return (f'<div class="plan-verdict {cls}" data-source="{_e(final.source)}"><b>{_e(t(lead))}</b> '
            f'({_e(source)}): {_e(translate(final.text))}{aside}</div>')


def _key(look: tuple, text: str) -> str:
    colour, dash, kind = look
    return f'<span>{swatch(colour, dash, kind)}{_e(text)}</span>'


def plot_html(plan: Plan) -> str:
    """The speedup-vs-gamma SVG with a key for its series (the same swatches as the chart's)."""
    keys = [_key(PREDICTED, t("plan.key.predicted"))]
    if plan.hardware_adjusted:
        keys.append(_key(ADJUSTED, t("plan.key.adjusted")))
    for p, (colour, kind) in zip(plan.measured_points, MEASURED):
        keys.append(_key((colour, None, kind), f"{translate(p.label)}: {p.speedup:.2f}x"))
    body = f'<div class="plan-svg">{speedup_svg(plan, width=540, height=280)}</div><div class="plan-keys">{"".join(keys)}</div>'
    return _section(t("plan.plot.title"), body, "plan-plot")


def table_html(plan: Plan) -> str:
    """The alpha x c table around (alpha, c): best gamma and speedup per cell; the measured cell outlined,
    the fastest cell highlighted."""
    grid = plan.table
    top = max(x.speedup for row in grid.cells for x in row)
    head = "".join(f"<th>c {c:.3g}</th>" for c in grid.cs)
    rows = []
    for a, row in zip(grid.alphas, grid.cells):
        cells = []
        for x in row:
            cls = " ".join(filter(None, ["cell-best" if x.speedup == top else "",
                                         "cell-measured" if x.measured else "",
                                         "cell-slow" if x.speedup < 1.0 else ""]))
            tip = t("plan.table.tip", alpha=f"{x.alpha:g}", c=f"{x.c:g}", gamma=x.best_gamma,
                    speedup=f"{x.speedup:.2f}")
            cells.append(f'<td class="{cls}" title="{_e(tip)}"><b>{x.speedup:.2f}x</b>'
                         f'<span>\u03b3 {x.best_gamma}</span></td>')
        rows.append(f"<tr><th>\u03b1 {a:.3g}</th>{''.join(cells)}</tr>")
    body = (f'<div class="plan-scroll"><table class="plan-table plan-grid"><thead><tr><th>\u03b1 \\ c</th>{head}</tr>'
            f'</thead><tbody>{"".join(rows)}</tbody></table></div>')
    return _section(t("plan.table.title"), body, "plan-around", t("plan.table.note"))


def engine_check_html(plan: Plan) -> str:
    """Predicted vs measured on a serving engine: its decode speedup (its own clock), the end-to-end one (the arena's)
    and each prompt's, beside Theorem 3.8 at its own mean draft length."""
    e = plan.engine
    rows = [(t("plan.engine.decode"), e.speedup.decode), (t("plan.engine.end_to_end"), e.speedup.end_to_end)]
    rows += [(t("plan.engine.prompt", n=i + 1), s) for i, s in enumerate(e.speedup.per_prompt)]
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr><th>{_e(t("plan.engine.measured"))}</th>'
            f'<th>{_e(t("plan.col.speedup"))}</th></tr></thead><tbody>'
            + "".join(f"<tr><td>{_e(label)}</td><td class='num'><b>{s:.2f}x</b></td></tr>" for label, s in rows)
            + '</tbody></table></div><div class="plan-reco">'
            + _e(t("plan.engine.reco_same" if e.identical else "plan.engine.reco_differs",
                   speedup=f"{e.speedup.predicted:.2f}", gamma=e.speedup.predicted_gamma,
                   drafted=f"{e.c.mean_drafted:.2f}")) + "</div>")
    return _section(t("plan.engine.title"), body, "plan-check")


def predicted_text(run: CheckRun) -> str:
    """A check run's prediction: '2.31x (adjusted 1.80x)', or 'n/a (no fixed gamma)' for a dynamic schedule."""
    if run.predicted_speedup is None:
        return t("plan.check.no_fixed_gamma")
    return t("plan.check.predicted", speedup=f"{run.predicted_speedup:.2f}", adjusted=f"{run.predicted_adjusted:.2f}")


def _measured_cell(run: CheckRun) -> str:
    """A check setting's measured speedup, or, when its races were not a measurement (their one verdict,
    app/race/verdict.py), the figure struck through with why."""
    if run.measured:
        return f"<b>{run.measured_speedup:.2f}x</b>"
    reason = t("figures.unmeasured", reason=translate(run.verdict.reason))
    return f'<s title="{_e(reason)}">{run.measured_speedup:.2f}x</s> {_e(t("bench.unmeasured_short"))}'


def check_html(plan: Plan) -> str:
    """Predicted vs measured speedup for the constant best gamma, the default schedule (and the adjusted gamma)."""
    if plan.engine:
        return engine_check_html(plan)
    runs = check_runs(plan)
    if not runs:
        return empty_html(t("plan.check.empty_title"),
                          t("plan.check.skipped") if plan.measured else t("plan.check.empty"))
    rows = "".join(
        f"<tr><td>{_e(translate(r.label))}</td><td class='num'>{_measured_cell(r)}</td>"
        f"<td class='num'>{_e(predicted_text(r))}</td><td class='num'>{r.modelled_speedup or 0:.2f}x</td>"
        f"<td class='num'>{alpha_text(r.observed.value)}</td>"
        f"<td>{_e(t('plan.check.identical') if r.identical else t('plan.check.differs'))}</td></tr>"
        for r in runs)
    head = "".join(f"<th>{_e(t(f'plan.check.col.{c}'))}</th>"
                   for c in ("setting", "measured", "predicted", "model", "alpha", "output"))
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody>'
            f'</table></div><div class="plan-reco">{_e(translate(plan.check.recommendation))}</div>')
    return _section(t("plan.check.title"), body, "plan-check")


def memory_html(plan: Plan) -> str:
    """Params, weight bytes, KV per token and at the context, the drafter's share, and whether it fits."""
    mem, title = plan.memory, t("plan.memory.title")
    if plan.engine:
        return empty_html(title, t("plan.memory.engine"))
    if not mem:
        return empty_html(title, t("plan.memory.empty"))
    if not isinstance(mem, PairMemory):
        return _section(title, f'<div class="plan-empty">{_e(t("plan.memory.unavailable", error=translate(mem.error)))}'
                        '</div>')
    tm, d = mem.target, mem.drafter
    cols = [(t("plan.memory.target"), tm)] + ([(t("plan.memory.drafter"), d)] if d else [])

    def row(label: str, f) -> str:
        return f"<tr><th>{_e(label)}</th>" + "".join(f"<td class='num'>{_e(f(x))}</td>" for _, x in cols) + "</tr>"

    rows = [row(t("plan.memory.shape"), lambda x: f"{x.layers} / {x.kv_heads} / {x.head_dim}"),
            row(t("plan.memory.params"), lambda x: f"{x.params_billion:.3f} B"),
            row(t("plan.memory.weights", dtype=mem.dtype), lambda x: f"{x.weight_gb:.3f} GB"),
            row(t("plan.memory.kv_token"), lambda x: f"{x.kv_kib_per_token:g} KiB"),
            row(t("plan.memory.kv_context", tokens=mem.context_tokens), lambda x: f"{x.kv_mib_at_context:g} MiB")]
    got = mem.measured
    if got is not None:  # the loaded models' own weights beside the prediction from their configs
        loaded = [got.target_weight_gb, got.drafter_weight_gb]
        rows.append(f"<tr><th>{_e(t('plan.memory.measured', dtype=got.dtype))}</th>" + "".join(
            f"<td class='num'>{_e('-' if v is None else f'{v:.3f} GB')}</td>" for v, _ in zip(loaded, cols)) + "</tr>")
    share = (t("plan.memory.share", weights=f"{mem.drafter_weight_share:.0%}", kv=f"{mem.drafter_kv_share:.0%}")
             if d else translate(mem.drafter_note) if mem.drafter_note else t("plan.memory.no_drafter"))
    fits = mem.fits
    lead = t("plan.memory.fits" if fits else "plan.memory.no_fit", gb=f"{mem.gpu_memory_gb:g}")
    rest = t("plan.memory.total", total=f"{mem.total_gb:.2f}", tokens=mem.context_tokens)
    if fits:
        rest += t("plan.memory.spare", spare=f"{mem.headroom_gb:.2f}")
    verdict = f'<div class="plan-fit {"fit-yes" if fits else "fit-no"}"><b>{_e(lead)}</b>{_e(rest)}</div>'
    if got is not None and got.peak_gb:
        verdict += f'<div class="plan-share">{_e(t("plan.memory.peak", peak=f"{got.peak_gb:.2f}"))}</div>'
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr><th></th>'
            f'{"".join(f"<th>{_e(n)}</th>" for n, _ in cols)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<div class="plan-share">{_e(share)}</div>{verdict}')
    return _section(title, body, "plan-memory")


def saving_text(saved: float) -> str:
    """'saves 35.0% GPU time' or 'COSTS 12.0% more GPU time' for a cost row's gpu_time_saved."""
    return t("plan.cost.saves", share=f"{saved:.1%}") if saved >= 0 else t("plan.cost.costs", share=f"{-saved:.1%}")


def cost_html(plan: Plan) -> str:
    """GPU time saved and dollars per month for each labelled speedup and GPU price."""
    cost = plan.cost
    head = "".join(f"<th>{_e(g.gpu)}<span>${g.dollars_per_hour:g}/h</span></th>" for g in cost.gpus)
    rows = []
    for r in cost.rows:
        money = "".join(f"<td class='num {'neg' if g.monthly_savings < 0 else ''}'>"
                        f"{'-' if g.monthly_savings < 0 else ''}${abs(g.monthly_savings):,.2f}"
                        f"<span>{_e(t('plan.cost.of', total=f'${g.monthly_cost:,.0f}'))}</span></td>"
                        for g in r.per_gpu)
        rows.append(f"<tr><td>{_e(translate(r.label))}<span>{r.speedup:.2f}x: {_e(saving_text(r.gpu_time_saved))}"
                    f"</span></td>{money}</tr>")
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr><th>{_e(t("plan.col.speedup"))}</th>'
            f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')
    title = t("plan.cost.title", hours=f"{cost.hours_per_month:g}")
    if cost.projection:
        title = t("plan.cost.projected_title", hours=f"{cost.hours_per_month:g}")
        body = (f'<div class="plan-projection">{_e(t("plan.cost.projection", text=translate(cost.projection)))}'
                '</div>' + body)
    return _section(title, body, "plan-cost", translate(cost.price_source))


def advice_html(plan: Plan) -> str:
    """The drafter-choice article's advice applied to this plan, then the measuring notes (the planner's sentences,
    in the visitor's language)."""
    items = "".join(f"<li>{_e(translate(x))}</li>" for x in plan.advice)
    notes = "".join(f"<li>{_e(translate(x))}</li>" for x in plan.notes)
    body = f'<ul class="plan-advice">{items}</ul>' + (f'<ul class="plan-notes">{notes}</ul>' if notes else "")
    return _section(t("plan.advice.title"), body, "plan-advice-card")
