"""The replay page's inline CSS: the race's own sheet (app.render.style), the gradio colour variables it reads, in
light and dark, and the page around it; nothing is fetched (system fonts, no URLs)."""

from ..render.style import DARK_RULES, RACE_CSS, dark_css

CSS = """
:root { --body-background-fill: #f6f7f9; --block-background-fill: #ffffff; --background-fill-secondary: #f1f3f6;
  --border-color-primary: #dfe3ea; --body-text-color: #1d2433; --body-text-color-subdued: #5b6577; --accent: #0072B2;
  --accent-text: #005a8c; --on-accent: #ffffff;
  --font-mono: ui-monospace, Menlo, Consolas, monospace; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --body-background-fill: #0f1115; --block-background-fill: #171a21; --background-fill-secondary: #1e222b;
    --border-color-primary: #2c323d; --body-text-color: #e6e9ef; --body-text-color-subdued: #9aa4b5; --accent: #56B4E9;
    --accent-text: #56B4E9; --on-accent: #0f1115; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--body-background-fill); color: var(--body-text-color); line-height: 1.45;
  font-family: ui-sans-serif, system-ui, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.wrap { max-width: 1280px; margin: 0 auto; padding: 14px 16px 28px; display: flex; flex-direction: column; gap: 12px; }
.rec-banner { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; padding: 8px 12px; border-radius: 10px;
  background: rgba(213,94,0,.09); border: 1px solid rgba(213,94,0,.45); font-size: 0.92rem; }
.rec-tag { display: inline-flex; align-items: center; gap: 6px; font-weight: 800; letter-spacing: .06em;
  text-transform: uppercase; color: #a34700; }
.rec-dot { width: 10px; height: 10px; border-radius: 50%; background: #D55E00; }
.hdr h1 { font-size: 1.4rem; margin: 0; letter-spacing: -0.01em; }
.hdr h1 span { font-weight: 400; color: var(--body-text-color-subdued); }
.hdr p { margin: 2px 0 0; color: var(--body-text-color-subdued); font-size: 0.95rem; overflow-wrap: anywhere; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 10px; }
.controls button, .speeds button { font: inherit; font-size: 0.9rem; font-weight: 700; min-height: 40px; padding: 6px 14px;
  border-radius: 8px; border: 1px solid var(--border-color-primary); background: var(--block-background-fill);
  color: var(--body-text-color); cursor: pointer; }
.controls #play { background: var(--accent); color: var(--on-accent); border-color: var(--accent); min-width: 110px; }
.speeds { display: inline-flex; flex-wrap: wrap; gap: 4px; }
.speeds button { min-width: 48px; padding: 6px 8px; font-weight: 600; }
.speeds button[aria-pressed=true] { background: rgba(0,114,178,.15); border-color: var(--accent);
  color: var(--accent-text); }
.clock { font-variant-numeric: tabular-nums; color: var(--body-text-color-subdued); font-size: 0.9rem; }
.pane-head { gap: 10px; padding: 10px 14px 8px; }
.pane-title { font-size: 1.08rem; }
.rate-value { font-size: 1.8rem; }
.pane-body { min-height: 180px; max-height: 380px; padding: 10px 14px; font-size: 1rem; }
.pane-foot { padding: 7px 14px; font-size: 0.8rem; }
.tok-legend { gap: 6px 18px; font-size: 0.86rem; padding: 0; }
.pane-progress > span { transition: none; }
.legend-row { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 6px 16px; }
.legend-row label { font-size: 0.86rem; display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
.card { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 12px 14px;
  background: var(--block-background-fill); }
.card-title { font-weight: 700; font-size: 0.95rem; margin: 0 0 8px; }
.final-wait { display: none; color: var(--body-text-color-subdued); font-size: 0.9rem; }
.hide-final .final { display: none; }
.hide-final .final-wait { display: block; }
.badges { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; margin-bottom: 10px; }
.stats-grid { grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); }
.verdict { margin-top: 10px; padding: 8px 12px; border-radius: 8px; background: rgba(0,114,178,.07);
  border-left: 4px solid #0072B2; font-size: 0.92rem; }
.chart-svg { max-width: 100%; height: auto; }
.chart-svg .axis { font-size: 12px; }
details.setup summary { cursor: pointer; font-weight: 700; font-size: 0.95rem; }
details.setup pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--background-fill-secondary);
  padding: 8px 10px; border-radius: 8px; font-size: 0.88rem; margin: 8px 0; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 3px 12px; margin: 0; font-size: 0.86rem; }
.facts dt { color: var(--body-text-color-subdued); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.provenance { font-size: 0.8rem; color: var(--body-text-color-subdued); overflow-wrap: anywhere; }
@media (max-width: 720px) {
  .wrap { padding: 10px 10px 24px; }
  .pane-body { min-height: 110px; max-height: 300px; }
  .stat-value { font-size: 1.2rem; }
  .stat-speedup .stat-value { font-size: 1.45rem; }
}
@media (prefers-color-scheme: dark) { .rec-tag { color: #ff9a57; } }
"""
CSS = RACE_CSS + dark_css(DARK_RULES, "media") + CSS
