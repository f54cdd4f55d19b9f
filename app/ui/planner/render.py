"""HTML of the Planner tab: pure functions of a :class:`~app.planner.types.Plan`, no gradio; every text from a user,
a model or a preset is escaped, and numbers read as the CLI's (app/planner/report.py)."""

from __future__ import annotations

from typing import Sequence

from ...render.html import esc as _e
from ...planner.memory import PairMemory
from ...planner.report import alpha_value_text, check_runs, memory_text, predicted_text, saving_text
from ...planner.types import Plan
from .plot import MEASURED_COLOURS, speedup_svg


def _section(title: str, body: str, cls: str = "", note: str = "") -> str:
    foot = f'<div class="plan-note">{_e(note)}</div>' if note else ""
    return f'<div class="plan-card {cls}"><div class="plan-card-title">{_e(title)}</div>{body}{foot}</div>'


def empty_html(title: str, text: str) -> str:
    """A placeholder card: what this section will show once there is a plan."""
    return _section(title, f'<div class="plan-empty">{_e(text)}</div>')


def progress_html(lines: Sequence[str], elapsed: float | None = None) -> str:
    """The measuring log: the newest line large, the earlier ones below (at most 8), with seconds elapsed."""
    lines = [str(x) for x in lines if str(x).strip()]
    head = lines[-1] if lines else "Starting"
    clock = f" \u00b7 {elapsed:.0f} s" if elapsed is not None else ""
    older = "".join(f"<li>{_e(x)}</li>" for x in lines[-9:-1])
    return (f'<div class="plan-progress" role="status"><span class="plan-spin"></span><b>{_e(head)}</b>{_e(clock)}'
            + (f'<ol class="plan-log">{older}</ol>' if older else "") + "</div>")


def _stat(label: str, value: str, note: str = "", cls: str = "", tip: str = "") -> str:
    title = f' title="{_e(tip)}"' if tip else ""
    return (f'<div class="plan-stat {cls}"{title}><div class="plan-stat-value">{_e(value)}</div>'
            f'<div class="plan-stat-label">{_e(label)}</div>'
            + (f'<div class="plan-stat-note">{_e(note)}</div>' if note else "") + "</div>")


def _measured_stats(plan: Plan) -> list[str]:
    """The headline's measured figures: alpha by agreement and observed, c with its spread."""
    m = plan.measurement
    agreement, obs, c = m.alpha_seed, m.alpha_observed, m.c
    return [_stat("alpha, by agreement", alpha_value_text(agreement.value), f"greedy agreement, {agreement.space}",
                  tip=agreement.how),
            _stat("alpha, observed", alpha_value_text(obs.value) if obs else "n/a",
                  f"accepted/drafted {obs.acceptance_rate:.3f} over {obs.drafting_rounds} rounds"
                  if obs else "no constant-gamma run"),
            _stat("c (draft step / target step)", f"{c.value:.4f}",
                  f"spread {c.low:.4f}..{c.high:.4f}; {c.draft_step_ms:.2f} vs {c.target_step_ms:.2f} ms a step",
                  tip=f"{c.what}, median of {c.repeats} x {c.steps} one-token steps")]


def _engine_stats(plan: Plan) -> list[str]:
    """The headline's figures measured on a serving engine: alpha from its rounds, c from its step times."""
    e = plan.engine
    a, c = e.alpha_observed, e.c
    return [_stat("alpha, observed on the engine", alpha_value_text(a.value),
                  f"accepted/drafted {alpha_value_text(a.acceptance_rate)} over {a.drafting_rounds} rounds",
                  tip=f"per token, from the engine's own rounds ({e.status_source})"),
            _stat("c, measured from the engine", f"{c.value:.4f}",
                  f"spread {c.low:.4f}..{c.high:.4f}; plain step {c.plain_ms_per_token:.2f} ms, verify step "
                  f"{c.verify_ms_per_step:.2f} ms", tip=c.what)]


def _who(plan: Plan) -> str:
    """Method, models, device and what was measured, in one line (empty for a plan without models)."""
    m = plan.measurement or plan.engine
    if not plan.target:
        return ""
    return (f'<div class="plan-who">{_e(plan.method or "")} \u00b7 {_e(plan.target)}'
            + (f' + {_e(plan.assistant)}' if plan.assistant else "")
            + (f' \u00b7 {_e(plan.device)}' if plan.device else "")
            + (f' \u00b7 {m.prompts} prompts x {m.max_new_tokens} tokens, greedy' if m else "") + "</div>")


def headline_html(plan: Plan) -> str:
    """alpha (both ways), c with its spread, best gamma, predicted speedup and the alpha-vs-c verdict."""
    if plan.measurement:
        stats = _measured_stats(plan)
    elif plan.engine:
        stats = _engine_stats(plan)
    else:
        stats = [_stat("alpha (given)", f"{plan.alpha:.3f}", "acceptance rate per draft token"),
                 _stat("c (given)", f"{plan.c:.4f}", "draft step time / target step time")]
    stats.append(_stat("best gamma", str(plan.best_gamma), "draft tokens per round (searched 1-20)", "plan-stat-gamma"))
    stats.append(_stat("predicted speedup", f"{plan.predicted_speedup:.2f}x",
                       f"Theorem 3.8 at alpha {plan.alpha:.3f}, c {plan.c:.4f}", "plan-stat-speedup"))
    verdict_box = final_html(plan)
    who = _who(plan)
    hw_line = ""
    if hw := plan.hardware_adjusted:
        hw_line = (f'<div class="plan-hw">On this hardware verifying costs {hw.verify_slope.value:.3f} of a step '
                   f'per extra token, so the effective c is {hw.c_effective:.4f}: best gamma {hw.best_gamma} '
                   f'({hw.predicted_speedup:.2f}x, the dashed curve).</div>')
    mode = "measured" if plan.measured else "calculator"
    return (f'<div class="plan-headline">{who}<div class="plan-stats">{"".join(stats)}</div>'
            f'{verdict_box}{hw_line}'
            f'<span class="plan-mode" data-mode="{mode}"></span></div>')


#: The plan's one verdict (app/planner/plan.py ``final_verdict``): its box class and its lead, by what it says.
FINAL = {"yes": ("plan-verdict-yes", "Drafting pays"), "no": ("plan-verdict-no", "Keep it off"),
         "level": ("plan-verdict-no", "Level with plain"), "close": ("plan-verdict-close", "Too close to call")}


def final_html(plan: Plan) -> str:
    """One verdict box: the measured races' verdict when the plan raced (the prediction below it, as a prediction),
    else the prediction's."""
    final = plan.final
    cls, lead = FINAL[final.pays]
    source = "measured on your prompts" if final.source == "measured" else "predicted from alpha and c"
    aside = (f'<div class="plan-prediction">The prediction from alpha and c said: {_e(final.prediction)}</div>'
             if final.source == "measured" else "")
    return (f'<div class="plan-verdict {cls}" data-source="{_e(final.source)}"><b>{_e(lead)}</b> '
            f'({_e(source)}): {_e(final.text)}{aside}</div>')


def plot_html(plan: Plan) -> str:
    """The speedup-vs-gamma SVG with a legend for its marks."""
    keys = ['<span><i class="pk pk-line"></i>predicted (Theorem 3.8)</span>']
    if plan.hardware_adjusted:
        keys.append('<span><i class="pk pk-dash"></i>adjusted for this hardware</span>')
    for p, colour in zip(plan.measured_points, MEASURED_COLOURS):
        keys.append(f'<span><i class="pk pk-sq" style="background:{colour}"></i>{_e(p.label)}: '
                    f'{p.speedup:.2f}x</span>')
    svg = speedup_svg(plan, width=540, height=280)
    body = f'<div class="plan-svg">{svg}</div><div class="plan-keys">{"".join(keys)}</div>'
    return _section("Speedup against gamma", body, "plan-plot")


def table_html(plan: Plan) -> str:
    """The alpha x c table around (alpha, c): best gamma and speedup per cell; the measured cell outlined,
    the fastest cell highlighted."""
    t = plan.table
    top = max(x.speedup for row in t.cells for x in row)
    head = "".join(f"<th>c {c:.3g}</th>" for c in t.cs)
    rows = []
    for a, row in zip(t.alphas, t.cells):
        cells = []
        for x in row:
            cls = " ".join(filter(None, ["cell-best" if x.speedup == top else "",
                                         "cell-measured" if x.measured else "",
                                         "cell-slow" if x.speedup < 1.0 else ""]))
            tip = f"alpha {x.alpha:g}, c {x.c:g}: gamma {x.best_gamma} gives {x.speedup:.2f}x"
            cells.append(f'<td class="{cls}" title="{_e(tip)}"><b>{x.speedup:.2f}x</b>'
                         f'<span>\u03b3 {x.best_gamma}</span></td>')
        rows.append(f"<tr><th>\u03b1 {a:.3g}</th>{''.join(cells)}</tr>")
    body = (f'<div class="plan-scroll"><table class="plan-table plan-grid"><thead><tr><th>\u03b1 \\ c</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')
    return _section("Best gamma around this point", body, "plan-around",
                    "outlined: your alpha and c; filled: the fastest cell; red: slower than plain generate()")


def engine_check_html(plan: Plan) -> str:
    """Predicted vs measured on a serving engine: its decode speedup (its own clock), the end-to-end one (the arena's)
    and each prompt's, beside Theorem 3.8 at its own mean draft length."""
    e = plan.engine
    rows = [("engine decode (its own clock, prompt left out)", e.speedup.decode),
            ("end to end (the arena's clock, prompt included)", e.speedup.end_to_end)]
    rows += [(f"prompt {i + 1}, engine decode", s) for i, s in enumerate(e.speedup.per_prompt)]
    body = ('<div class="plan-scroll"><table class="plan-table"><thead><tr><th>measured</th><th>speedup</th></tr>'
            '</thead><tbody>' + "".join(f"<tr><td>{_e(label)}</td><td class='num'><b>{s:.2f}x</b></td></tr>"
                                        for label, s in rows) + '</tbody></table></div>'
            f'<div class="plan-reco">Theorem 3.8 at the measured alpha and c predicts {e.speedup.predicted:.2f}x at '
            f'gamma {e.speedup.predicted_gamma} (the engine drafted {e.c.mean_drafted:.2f} a round); output '
            f'{"identical to" if e.identical else "DIFFERS from"} plain.</div>')
    return _section("Predicted vs measured (the engine, sequential)", body, "plan-check")


def check_html(plan: Plan) -> str:
    """Predicted vs measured speedup for the constant best gamma, the default schedule (and the adjusted gamma)."""
    if plan.engine:
        return engine_check_html(plan)
    runs = check_runs(plan)
    if not runs:
        return empty_html("Predicted vs measured", "Measure a model pair to race the best constant gamma against "
                          "the default schedule." if not plan.measured else "The check races were skipped.")
    rows = "".join(
        f"<tr><td>{_e(r.label)}</td><td class='num'><b>{r.measured_speedup:.2f}x</b></td>"
        f"<td class='num'>{_e(predicted_text(r))}</td><td class='num'>{r.modelled_speedup or 0:.2f}x</td>"
        f"<td class='num'>{alpha_value_text(r.observed.value)}</td>"
        f"<td>{'identical' if r.identical else 'differs'}</td></tr>"
        for r in runs)
    body = ('<div class="plan-scroll"><table class="plan-table"><thead><tr><th>setting</th><th>measured</th>'
            '<th>predicted</th><th>cost model on its rounds</th><th>alpha observed</th><th>output vs plain</th></tr>'
            f'</thead><tbody>{rows}</tbody></table></div><div class="plan-reco">{_e(plan.check.recommendation)}</div>')
    return _section("Predicted vs measured (sequential races)", body, "plan-check")


def memory_html(plan: Plan) -> str:
    """Params, weight bytes, KV per token and at the context, the drafter's share, and whether it fits."""
    mem = plan.memory
    if plan.engine:
        return empty_html("Memory", "A serving engine holds its own models: the planner reads no configs for it.")
    if not mem:
        return empty_html("Memory", "Measure a model pair to read its configs: parameters, weights, KV cache, fit.")
    if not isinstance(mem, PairMemory):
        return _section("Memory", f'<div class="plan-empty">{_e(memory_text(mem))}</div>')
    t, d = mem.target, mem.drafter
    cols = [("target", t)] + ([("drafter", d)] if d else [])

    def row(label: str, f) -> str:
        return f"<tr><th>{_e(label)}</th>" + "".join(f"<td class='num'>{_e(f(x))}</td>" for _, x in cols) + "</tr>"

    rows = [row("layers / KV heads / head dim", lambda x: f"{x.layers} / {x.kv_heads} / {x.head_dim}"),
            row("parameters", lambda x: f"{x.params_billion:.3f} B"),
            row(f"weights ({mem.dtype})", lambda x: f"{x.weight_gb:.3f} GB"),
            row("KV cache per token", lambda x: f"{x.kv_kib_per_token:g} KiB"),
            row(f"KV cache at {mem.context_tokens} tokens", lambda x: f"{x.kv_mib_at_context:g} MiB")]
    share = (f"drafter share: {mem.drafter_weight_share:.0%} of the target's weights, "
             f"{mem.drafter_kv_share:.0%} of its KV cache" if d else mem.drafter_note or "no drafter model")
    fits = mem.fits
    verdict = (f'<div class="plan-fit {"fit-yes" if fits else "fit-no"}"><b>{"Fits" if fits else "Does NOT fit"}'
               f' in {mem.gpu_memory_gb:g} GB</b>: {mem.total_gb:.2f} GB in all at {mem.context_tokens} '
               f'tokens' + (f', {mem.headroom_gb:.2f} GB to spare' if fits else "") + "</div>")
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr><th></th>'
            f'{"".join(f"<th>{n}</th>" for n, _ in cols)}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<div class="plan-share">{_e(share)}</div>{verdict}')
    return _section("Memory", body, "plan-memory")


def cost_html(plan: Plan) -> str:
    """GPU time saved and dollars per month for each labelled speedup and GPU price."""
    cost = plan.cost
    head = "".join(f"<th>{_e(g.gpu)}<span>${g.dollars_per_hour:g}/h</span></th>" for g in cost.gpus)
    rows = []
    for r in cost.rows:
        money = "".join(f"<td class='num {'neg' if g.monthly_savings < 0 else ''}'>"
                        f"{'-' if g.monthly_savings < 0 else ''}${abs(g.monthly_savings):,.2f}"
                        f"<span>of ${g.monthly_cost:,.0f}</span></td>" for g in r.per_gpu)
        rows.append(f"<tr><td>{_e(r.label)}<span>{r.speedup:.2f}x: {_e(saving_text(r.gpu_time_saved))}</span>"
                    f"</td>{money}</tr>")
    body = (f'<div class="plan-scroll"><table class="plan-table"><thead><tr><th>speedup</th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')
    title = f"Cost at {cost.hours_per_month:g} GPU hours a month (savings per month)"
    if cost.projection:
        title = f"Projected cost at {cost.hours_per_month:g} GPU hours a month, if the GPUs gave these speedups"
        body = f'<div class="plan-projection">This is {_e(cost.projection)}.</div>' + body
    return _section(title, body, "plan-cost", cost.price_source)


def advice_html(plan: Plan) -> str:
    """The drafter-choice article's advice applied to this plan, then the measuring notes."""
    items = "".join(f"<li>{_e(x)}</li>" for x in plan.advice)
    notes = "".join(f"<li>{_e(x)}</li>" for x in plan.notes)
    body = f'<ul class="plan-advice">{items}</ul>' + (f'<ul class="plan-notes">{notes}</ul>' if notes else "")
    return _section("What to do", body, "plan-advice-card")
