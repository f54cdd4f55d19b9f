"""The one stylesheet of a race, shared by the app's theme and the replay page: Okabe-Ito token colours, each
status with its own underline; the colours around the race are gradio's variables, which the replay page defines."""

from __future__ import annotations

RACE_CSS = """
/* ---- the player (app/render/player.js): two panes side by side, one column on a phone ---- */
.race-player .panes { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 14px; align-items: stretch; }
.pane-host { display: flex; min-width: 0; }
.pane-host > .pane { flex: 1 1 auto; }
@media (max-width: 720px) { .race-player .panes { grid-template-columns: minmax(0, 1fr); } }
.pane .future, .pane del.rej.future { display: none !important; }
.pane del.rej { display: none; }
.show-rej .pane del.rej, .legend-item del.rej { display: inline; }
svg .round.future { visibility: hidden; }
.pane-placeholder { color: var(--body-text-color-subdued); font-style: italic; }
.pane-message { margin-top: 8px; color: #a34700; font-size: 0.9rem; white-space: normal; }

/* ---- panes ---- */
.pane { display: flex; flex-direction: column; min-width: 0; border-radius: 12px; background: var(--block-background-fill);
  border: 1px solid var(--border-color-primary); box-shadow: 0 1px 2px rgba(0,0,0,.04); overflow: hidden; }
.pane-assisted { border-top: 4px solid #0072B2; }
.pane-baseline { border-top: 4px solid #8a94a6; }
.pane-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 12px;
  padding: 12px 16px 8px; border-bottom: 1px solid var(--border-color-primary); }
.pane-titles { display: flex; flex-direction: column; min-width: 0; }
.pane-title { font-weight: 700; font-size: 1.1rem; }
.pane-subtitle { color: var(--body-text-color-subdued); font-size: 0.85rem; white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
.pane-rate { display: flex; align-items: baseline; gap: 4px; font-variant-numeric: tabular-nums; }
.rate-value { font-size: 1.9rem; font-weight: 700; line-height: 1; }
.pane-assisted .rate-value { color: #0072B2; }
.rate-unit { color: var(--body-text-color-subdued); font-size: 0.85rem; }
.pane-body { flex: 1 1 auto; padding: 12px 16px; font-size: 1.02rem; line-height: 1.85; overflow-y: auto;
  white-space: pre-wrap; word-break: break-word; overflow-wrap: anywhere; }
.pane-progress { height: 3px; background: var(--border-color-primary); }
.pane-progress > span { display: block; height: 100%; background: #8a94a6; transition: width .15s linear; }
.pane-assisted .pane-progress > span { background: #0072B2; }
.pane-foot { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; padding: 8px 16px;
  border-top: 1px solid var(--border-color-primary); font-size: 0.82rem; color: var(--body-text-color-subdued); }
.phase-pill { padding: 1px 9px; border-radius: 999px; font-weight: 600; font-size: 0.75rem;
  text-transform: uppercase; letter-spacing: 0.04em; background: rgba(138,148,166,.18); color: var(--body-text-color); }
.phase-pill.phase-running, .phase-pill.phase-replay { background: rgba(0,114,178,.15); color: #005a8c; }
.phase-pill.phase-done { background: rgba(0,158,115,.15); color: #006b4f; }
.phase-pill.phase-stopped, .phase-pill.phase-error { background: rgba(213,94,0,.15); color: #a34700; }

/* ---- tokens: colour + underline style, never colour alone ---- */
.tok { border-radius: 3px; padding: 1px 0; -webkit-box-decoration-break: clone; box-decoration-break: clone; }
.tok-accepted { background: rgba(0,114,178,.16); border-bottom: 2px solid #0072B2; }
.tok-resampled { background: rgba(230,159,0,.24); border-bottom: 2px dashed #b87f00; }
.tok-bonus { background: rgba(204,121,167,.24); border-bottom: 3px double #a8548a; }
.tok-target { background: transparent; }
.pane .tok-target { border-bottom: none; }
.tok-special { font-family: var(--font-mono); font-size: 0.72em; padding: 0 5px; margin: 0 2px; border-radius: 6px;
  border: 1px solid var(--border-color-primary); color: var(--body-text-color-subdued); background: transparent;
  white-space: nowrap; }
.tok-diverge { outline: 2px solid #D55E00; outline-offset: 1px; }
del.rej { color: #a34700; text-decoration: line-through; text-decoration-thickness: 2px;
  font-size: 0.88em; margin: 0 2px; padding: 0 2px; border-radius: 3px; background: rgba(213,94,0,.07); }
.pane .tok[title] { cursor: help; }
.tok-legend { display: flex; flex-wrap: wrap; gap: 6px 22px; align-items: center; font-size: 0.88rem; padding: 6px 2px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.legend-item .tok { padding: 0 6px; font-weight: 600; }
.legend-text { color: var(--body-text-color-subdued); }

/* ---- badge and stat cards ---- */
.badge { display: inline-block; padding: 3px 12px; border-radius: 999px; font-weight: 700; font-size: 0.9rem; }
.badge-identical { background: rgba(0,158,115,.14); color: #00704f; border: 1px solid rgba(0,158,115,.5); }
.badge-diverged { background: rgba(230,159,0,.16); color: #8a5d00; border: 1px dashed #b87f00; }
.badge-unexpected { background: rgba(213,94,0,.14); color: #a34700; border: 1px solid #D55E00; }
.badge-none { color: var(--body-text-color-subdued); border: 1px dashed var(--border-color-primary); }
.badge-why { color: var(--body-text-color-subdued); font-size: 0.86rem; }
.stats-grid { display: grid; gap: 10px; }
.stat { padding: 10px 12px; border-radius: 10px; background: var(--background-fill-secondary);
  border: 1px solid var(--border-color-primary); min-width: 0; }
.stat-value { font-size: 1.45rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
.stat-speedup .stat-value { color: #0072B2; font-size: 1.7rem; }
.stat-label { font-weight: 600; font-size: 0.85rem; }
.stat-note { color: var(--body-text-color-subdued); font-size: 0.78rem; margin-top: 2px; }
.stat.speed-win .stat-value { color: #007a59; }
.stat.speed-loss { border-color: #D55E00; background: rgba(213,94,0,.07); }
.stat.speed-loss .stat-value { color: #a34700; }
.stat.speed-unmeasured { border-color: #E69F00; border-style: dashed; }
.stat.speed-unmeasured .stat-value { text-decoration: line-through; }

/* ---- round chart ---- */
.chart { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 10px 14px;
  background: var(--block-background-fill); }
.chart-title { font-weight: 700; font-size: 0.95rem; }
.chart-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; font-size: 0.8rem;
  color: var(--body-text-color-subdued); margin: 4px 0 6px; }
.chart-sum { margin-left: auto; }
.key { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-left: 6px; }
.key-accepted { background: #0072B2; }
.key-rejected { background: repeating-linear-gradient(45deg, #E69F00 0 2px, rgba(230,159,0,.25) 2px 4px);
  border: 1px solid #b87f00; }
.key-none { background: #8a94a6; height: 4px; }
.chart-scroll { overflow-x: auto; }
.chart-svg { display: block; max-width: none; }
.chart-svg .bar-accepted { fill: #0072B2; }
.chart-svg .bar-rejected { stroke: #b87f00; stroke-width: 0.8; }
.chart-svg .bar-rejected-bg { fill: rgba(230,159,0,.25); }
.chart-svg .bar-rejected-line { stroke: #E69F00; stroke-width: 2.2; }
.chart-svg .bar-none { fill: #8a94a6; }
.chart-svg .grid { stroke: var(--border-color-primary); stroke-width: 1; }
.chart-svg .axis { fill: var(--body-text-color-subdued); font-size: 9px; }
.chart-svg .round:hover rect { opacity: .75; }
"""

#: The same race in dark mode: the same hues, lighter tones for contrast.
DARK_RULES = """
.pane-assisted .rate-value, .stat-speedup .stat-value, .phase-pill.phase-running, .phase-pill.phase-replay { color: #56B4E9; }
.badge-identical, .phase-pill.phase-done, .stat.speed-win .stat-value { color: #5fd3a9; }
.badge-diverged { color: #f0c05a; }
.badge-unexpected, .stat.speed-loss .stat-value, del.rej, .pane-message { color: #ff9a57; }
.tok-accepted { background: rgba(86,180,233,.22); border-bottom-color: #56B4E9; }
.tok-resampled { background: rgba(230,159,0,.28); border-bottom-color: #E69F00; }
.tok-bonus { background: rgba(204,121,167,.30); border-bottom-color: #CC79A7; }
.tok-special { color: var(--body-text-color); }
"""


def dark_css(rules: str, scope: str) -> str:
    """`rules` for dark mode: scope ".dark" prefixes every selector with that class (gradio's dark theme);
    scope "media" wraps them in ``@media (prefers-color-scheme: dark)`` (a standalone page)."""
    if scope == "media":
        return f"@media (prefers-color-scheme: dark) {{{rules}}}\n"
    out = []  # one rule per selector: gradio scopes only the first selector of a list under its ".dark"
    for line in rules.strip().splitlines():
        selectors, body = line.split("{", 1)
        out.extend(f"{scope} {s.strip()} {{{body}" for s in selectors.split(","))
    return "\n".join(out) + "\n"
