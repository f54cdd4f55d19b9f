"""Theme and CSS of the page around the race (gradio 6 takes them at ``launch()``); the race itself is styled by
app.render.style, the sheet the replay page shares. Fonts are local or system fonts: nothing is fetched."""

from __future__ import annotations

import gradio as gr

from ..render.style import DARK_RULES, RACE_CSS, dark_css


def make_theme() -> gr.themes.Base:
    """A quiet theme with system fonts; every text at least 4.5:1 against its background in light and dark
    (WCAG AA: the Soft theme's greys and blue labels are 2.4-3.7:1)."""
    return gr.themes.Soft(
        primary_hue=gr.themes.colors.blue,
        neutral_hue=gr.themes.colors.slate,
        radius_size=gr.themes.sizes.radius_md,
        font=("ui-sans-serif", "system-ui", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "sans-serif"),
        font_mono=("ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "DejaVu Sans Mono", "monospace"),
    ).set(
        body_background_fill="#f6f7f9",
        body_background_fill_dark="#0f1115",
        block_radius="12px",
        button_primary_background_fill="#0072B2",
        button_primary_background_fill_hover="#005b8f",
        button_primary_background_fill_dark="#0072B2",
        button_primary_background_fill_hover_dark="#005b8f",
        button_primary_text_color="white",
        body_text_color_subdued="*neutral_600",
        input_placeholder_color="*neutral_500",
        input_placeholder_color_dark="*neutral_400",
        block_label_text_color="*primary_700",
        block_title_text_color="*primary_700",
        checkbox_label_background_fill_selected="*primary_600",
        link_text_color_dark="*secondary_300",
        link_text_color_active_dark="*secondary_300",
        link_text_color_hover_dark="*secondary_200",
        link_text_color_visited_dark="*secondary_300",
    )


#: The page's own dark-mode tones (the same hues, lighter for contrast), scoped as the race's are.
PAGE_DARK_RULES = """
.pill-lossless, .plan-stat-speedup .plan-stat-value, .plan-stat-gamma .plan-stat-value { color: #56B4E9; }
.plan-grid td.cell-best b, .bench-table td.bench-best b { color: #56B4E9; }
.where-offline, .speed-win { color: #5fd3a9; }
.where-hub { color: #8fd0f5; }
.pill-lossy, .status-error, .status-loss, .speed-loss, .plan-table td.neg, .plan-grid td.cell-slow { color: #ff9a57; }
.bench-table .bench-loss, .bench-table td.bench-loss b { color: #ff9a57; }
#tabs > .tab-wrapper button[role=tab][aria-selected=true] { color: #7ab8ff; }
"""

CSS = RACE_CSS + dark_css(DARK_RULES, ".dark") + dark_css(PAGE_DARK_RULES, ".dark") + """
.gradio-container { max-width: 1680px !important; margin: 0 auto !important; }
#arena-header { padding: 4px 4px 0; }
#arena-header h1 { font-size: 1.55rem; font-weight: 700; margin: 0; letter-spacing: -0.01em; }
#arena-header p { margin: 2px 0 0; color: var(--body-text-color-subdued); font-size: 0.95rem; }
#arena-header .hdr { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; }
#arena-header .hdr-chip { font-size: 0.8rem; padding: 2px 10px; border-radius: 999px;
  border: 1px solid var(--border-color-primary); color: var(--body-text-color-subdued); }

/* ---- the race's own rules (panes, tokens, legend, badge, cards, chart) are app.render.style's ---- */
.pane { min-height: 260px; }
.pane-body { max-height: 420px; }
.cursor { display: inline-block; width: 0.55em; height: 1.05em; margin-left: 1px; vertical-align: text-bottom;
  background: currentColor; opacity: .35; animation: blink 1s steps(2, start) infinite; }
@keyframes blink { to { visibility: hidden; } }
#legend-row { align-items: center; gap: 10px; flex-wrap: nowrap; }
#legend-row > #legend { flex: 1 1 auto !important; min-width: 0 !important; }
#legend-row > #show-rejected { flex: 0 0 auto !important; width: auto !important; min-width: 0 !important;
  padding: 4px 10px; border-radius: 999px; border: 1px solid var(--border-color-primary); }

/* ---- status ---- */
.status { display: flex; gap: 8px; align-items: flex-start; padding: 8px 12px; border-radius: 8px; font-size: 0.9rem;
  background: rgba(0,114,178,.08); border: 1px solid rgba(0,114,178,.25); }
.status-ok { background: rgba(0,158,115,.08); border-color: rgba(0,158,115,.35); }
.status-error { background: rgba(213,94,0,.08); border-color: rgba(213,94,0,.45); color: #a34700; margin-top: 6px; }
.status-icon { font-weight: 700; }

/* ---- stats ---- */
.stats, .plan-headline, .why { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 12px 14px;
  background: var(--block-background-fill); }
.stats-empty, .chart-empty { color: var(--body-text-color-subdued); font-size: 0.9rem; padding: 12px 14px;
  border: 1px dashed var(--border-color-primary); border-radius: 12px; }
.stats-badge { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; margin-bottom: 10px; }
.stats-grid { grid-template-columns: repeat(3, minmax(0, 1fr)); }
@media (max-width: 700px) { .stats-grid { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
.stats-foot { margin-top: 8px; font-size: 0.8rem; color: var(--body-text-color-subdued); }

/* ---- settings column ---- */
.method-card { border: 1px solid var(--border-color-primary); border-radius: 10px; padding: 10px 12px;
  background: var(--block-background-fill); font-size: 0.88rem; }
.method-head { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 4px; }
.method-title { font-weight: 700; }
.method-summary { margin-bottom: 4px; }
.method-desc { color: var(--body-text-color-subdued); }
.pill { font-size: 0.72rem; font-weight: 700; padding: 1px 8px; border-radius: 999px; text-transform: uppercase;
  letter-spacing: 0.03em; }
.where-offline { background: rgba(0,158,115,.15); color: #00704f; }
.where-hub { background: rgba(86,180,233,.2); color: #1f5f85; }
.pill-lossless { background: rgba(0,114,178,.12); color: #005a8c; }
.pill-lossy { background: rgba(213,94,0,.12); color: #a34700; }
.hw { font-size: 0.85rem; }
.hw-device { margin-bottom: 6px; }
.hw-grid { display: grid; grid-template-columns: auto minmax(0, 1fr) auto auto auto auto; font-size: 0.82rem; }
.hw-grid > span { padding: 4px 6px; border-bottom: 1px solid var(--border-color-primary); white-space: nowrap;
  overflow: hidden; text-overflow: ellipsis; }
.hw-grid .hw-th { font-weight: 600; color: var(--body-text-color-subdued); font-size: 0.74rem; text-transform: uppercase; }
.hw-grid .mono { font-family: var(--font-mono); font-size: 0.78rem; }
.hw-pending { color: var(--body-text-color-subdued); }
.hw-note { margin-top: 8px; padding: 8px 10px; border-radius: 8px; background: rgba(230,159,0,.12);
  border-left: 4px solid #E69F00; }
#run-btn, #stop-btn { min-height: 44px; font-weight: 700; }
#race-mode { align-self: center; }
#race-mode label { font-size: 0.85rem; }

/* ---- planner tab ---- */
#tabs > .tab-wrapper button[role=tab] { font-weight: 700; font-size: 0.98rem; }
#tabs > .tab-wrapper button[role=tab][aria-selected=true] { color: #1d4ed8; }  /* gradio's accent is 3.4:1 */
.plan-intro { font-size: 0.9rem; padding: 2px 2px 4px; color: var(--body-text-color); }
.plan-box-title { font-weight: 700; font-size: 0.9rem; padding: 8px 12px; background: var(--background-fill-secondary); }
#plan-compute-btn, #plan-measure-btn, #plan-stop-btn, #bench-run-btn, #bench-stop-btn { min-height: 42px;
  font-weight: 700; }
#plan-outputs, #bench-outputs { gap: 12px; }
#plan-figs, #plan-money, #bench-plots-2 { gap: 12px; align-items: stretch; }
#plan-figs > div, #plan-money > div, #bench-plots-2 > div { flex: 1 1 0; min-width: 0; }
#plan-plot { flex: 1.35 1 0 !important; }
#plan-table { flex: 0 1 auto !important; }  /* the grid at its own width; the plot takes the rest */
.plan-scroll { overflow-x: auto; }
.plan-card { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 10px 14px; height: 100%;
  background: var(--block-background-fill); box-sizing: border-box; }
.plan-card-title, .bench-card-title { font-weight: 700; font-size: 0.95rem; margin-bottom: 8px; }
.plan-empty, .plan-note { color: var(--body-text-color-subdued); font-size: 0.85rem; }
.plan-note { margin-top: 8px; font-size: 0.78rem; }
.plan-progress { padding: 8px 12px; border-radius: 8px; border: 1px solid rgba(0,114,178,.35);
  background: rgba(0,114,178,.06); font-size: 0.9rem; font-variant-numeric: tabular-nums; }
.plan-log { margin: 6px 0 0 18px; padding: 0; color: var(--body-text-color-subdued); font-size: 0.8rem;
  font-family: var(--font-mono); }
.plan-spin { display: inline-block; width: 10px; height: 10px; margin-right: 8px; border-radius: 50%;
  border: 2px solid #0072B2; border-right-color: transparent; animation: plan-spin .8s linear infinite; }
@keyframes plan-spin { to { transform: rotate(360deg); } }
.plan-who { font-size: 0.82rem; color: var(--body-text-color-subdued); margin-bottom: 8px; font-family: var(--font-mono);
  overflow-wrap: anywhere; }
.plan-stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 10px; }
.plan-stat { padding: 8px 12px; border-radius: 10px; background: var(--background-fill-secondary); }
.plan-stat-value { font-size: 1.45rem; font-weight: 700; line-height: 1.2; font-variant-numeric: tabular-nums; }
.plan-stat-label { font-weight: 600; font-size: 0.82rem; }
.plan-stat-note { color: var(--body-text-color-subdued); font-size: 0.74rem; margin-top: 2px; }
.plan-stat-speedup .plan-stat-value, .plan-stat-gamma .plan-stat-value { color: #0072B2; font-size: 1.7rem; }
.plan-verdict { margin-top: 10px; padding: 8px 12px; border-radius: 8px; font-size: 0.9rem; }
.plan-verdict-yes, .fit-yes { background: rgba(0,158,115,.1); border-left: 4px solid #009E73; }
.plan-verdict-no, .fit-no { background: rgba(213,94,0,.1); border-left: 4px solid #D55E00; }
.plan-verdict-close { background: rgba(230,159,0,.1); border-left: 4px dashed #E69F00; }
.plan-prediction, .plan-projection { font-size: .9em; margin-top: 4px; }
.plan-hw { margin-top: 6px; font-size: 0.84rem; color: var(--body-text-color-subdued); }
.plan-svg svg { width: 100%; height: auto; display: block; }
.plan-keys { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.78rem; margin-top: 4px; }
.pk { display: inline-block; width: 16px; height: 10px; margin-right: 5px; vertical-align: middle; }
.pk-line { height: 0; border-top: 2px solid #1f77b4; }
.pk-dash { height: 0; border-top: 2px dashed #ff7f0e; }
.pk-sq { width: 10px; }
.plan-table { width: 100%; border-collapse: collapse; font-size: 0.84rem; font-variant-numeric: tabular-nums; }
.plan-table th, .plan-table td { padding: 5px 8px; border-bottom: 1px solid var(--border-color-primary); text-align: left;
  vertical-align: top; }
.plan-table thead th { font-size: 0.74rem; text-transform: uppercase; color: var(--body-text-color-subdued);
  font-weight: 600; white-space: nowrap; }
.plan-table thead th span, .plan-table td span { display: block; font-size: 0.72rem; text-transform: none;
  color: var(--body-text-color-subdued); font-weight: 400; }
.plan-table td.num, .bench-table td.num { text-align: right; white-space: nowrap; }
.plan-table td.neg { color: #a34700; }
.plan-grid td, .plan-grid th { text-align: center; border: 1px solid var(--border-color-primary); padding: 3px 4px; }
.plan-grid thead th { text-transform: none; font-size: 0.76rem; }
.plan-grid tbody th { white-space: nowrap; }
.plan-grid td b { font-weight: 600; }
.plan-grid td.cell-best { background: rgba(0,114,178,.16); }
.plan-grid td.cell-best b { color: #0072B2; font-weight: 800; }
.plan-grid td.cell-measured { outline: 2.5px solid #E69F00; outline-offset: -3px; }
.plan-grid td.cell-slow { background: rgba(213,94,0,.12); color: #a34700; }
.plan-reco { margin-top: 8px; font-weight: 600; font-size: 0.9rem; }
.plan-share { margin-top: 6px; font-size: 0.84rem; }
.plan-fit { margin-top: 8px; padding: 6px 10px; border-radius: 8px; font-size: 0.88rem; }
.plan-advice { margin: 0; padding-left: 18px; font-size: 0.9rem; }
.plan-advice li { margin: 3px 0; }
.plan-notes { margin: 8px 0 0; padding-left: 18px; font-size: 0.8rem; color: var(--body-text-color-subdued); }
#plan-downloads { gap: 10px; }
/* ---- slowdowns read as slowdowns ---- */
.status-loss { background: rgba(213,94,0,.08); border-color: rgba(213,94,0,.45); color: #8a3d00; }

.method-wins, .method-loses { margin-top: 4px; padding-left: 8px; border-left: 3px solid #009E73; }
.method-loses { border-left-color: #D55E00; }

/* ---- why panel ---- */
.why.why-empty { color: var(--body-text-color-subdued); font-size: 0.9rem; border-style: dashed; }
.why-loss { border-left: 5px solid #D55E00; }
.why-win { border-left: 5px solid #009E73; }
.why-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; }
.why-speed { font-size: 1.35rem; font-weight: 800; }
.speed-win { color: #007a59; }
.speed-loss { color: #b34f00; }
.why-mode { font-size: 0.8rem; color: var(--body-text-color-subdued); text-transform: uppercase; letter-spacing: .04em; }
.why-verdict { margin: 6px 0 10px; font-size: 0.95rem; line-height: 1.45; }
.why-figs { display: flex; flex-wrap: wrap; gap: 14px; }
.why-fig { flex: 1 1 260px; min-width: 0; }
.why-fig-title { font-weight: 700; font-size: 0.85rem; margin-bottom: 6px; }
.why-note, .why-empty { font-size: 0.78rem; color: var(--body-text-color-subdued); }
.why-plot { display: flex; gap: 6px; }
.why-axis { position: relative; flex: 0 0 30px; height: 96px; font-size: 10px; color: var(--body-text-color-subdued); }
.why-axis span { position: absolute; right: 0; transform: translateY(50%); line-height: 1; }
.why-bars { position: relative; flex: 1 1 auto; display: flex; align-items: flex-end; gap: 3px; height: 96px;
  border-bottom: 1px solid var(--border-color-primary); border-left: 1px solid var(--border-color-primary);
  background: linear-gradient(var(--border-color-primary) 1px, transparent 1px) 0 0 / 100% 50%; }
.why-bar { position: relative; flex: 1 1 0; height: 100%; display: flex; align-items: flex-end; min-width: 6px; }
.why-bar span { display: block; width: 100%; border-radius: 3px 3px 0 0; background: #0072B2; }
.why-bar.why-bar-low span { background: #E69F00; }
.why-xs { display: flex; gap: 3px; margin: 2px 0 4px 37px; }
.why-xs i { flex: 1 1 0; min-width: 6px; text-align: center; font-size: 10px; font-style: normal;
  color: var(--body-text-color-subdued); }
.why-line { position: absolute; left: 0; right: 0; border-top: 2px dashed #D55E00; }
.why-key-line { display: inline-block; width: 18px; margin-right: 6px; vertical-align: middle;
  border-top: 2px dashed #D55E00; }
.why-copy { margin-top: 8px; font-size: 0.82rem; line-height: 1.45; }
.why-stack { display: flex; height: 18px; border-radius: 6px; overflow: hidden; background: var(--border-color-primary); }
.why-seg-draft { background: #CC79A7; }
.why-seg-verify { background: #0072B2; }
.why-seg-other { background: #8a94a6; }
.why-keys { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 0.78rem; margin: 4px 0 8px; }
.why-key { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: middle; }
.why-nums { display: grid; grid-template-columns: repeat(auto-fit, minmax(110px, 1fr)); gap: 6px; }
.why-num { padding: 6px 8px; border-radius: 8px; background: var(--background-fill-secondary); }
.why-num b { display: block; font-size: 1.05rem; font-variant-numeric: tabular-nums; }
.why-num span { font-size: 0.72rem; color: var(--body-text-color-subdued); }

/* ---- wide tables and plots scroll inside their card, visibly: a shade at each edge that has more to show ---- */
.plan-scroll, .chart-scroll, .plan-svg { overflow-x: auto;
  background: linear-gradient(to right, var(--block-background-fill) 30%, transparent) left / 32px 100% no-repeat local,
    linear-gradient(to left, var(--block-background-fill) 30%, transparent) right / 32px 100% no-repeat local,
    linear-gradient(to right, rgba(15,23,42,.28), transparent) left / 14px 100% no-repeat scroll,
    linear-gradient(to left, rgba(15,23,42,.28), transparent) right / 14px 100% no-repeat scroll; }
.plan-scroll::-webkit-scrollbar, .chart-scroll::-webkit-scrollbar, .plan-svg::-webkit-scrollbar,
  .bench-svg::-webkit-scrollbar { height: 8px; }
.plan-scroll::-webkit-scrollbar-thumb, .chart-scroll::-webkit-scrollbar-thumb, .plan-svg::-webkit-scrollbar-thumb,
  .bench-svg::-webkit-scrollbar-thumb { background: #8a94a6; border-radius: 4px; }
.plan-table th, .plan-table td, .plan-table tr, .plan-table thead { background: transparent; }
#plan-outputs > *, #bench-outputs > *, #main-row > .column > * { min-width: 0; max-width: 100%; }
/* a dropdown's arrow sits over the end of its input: keep the text clear of it */
.secondary-wrap input[role=combobox] { padding-right: 22px !important; text-overflow: ellipsis; }

/* ---- phones (about 390 px): one column, nothing wider than the screen ---- */
@media (max-width: 640px) {
  #main-row, #legend-row, #plan-row, #plan-figs, #plan-money, #bench-row, #bench-plots-2 {
    flex-direction: column !important; flex-wrap: wrap !important; }
  #main-row > div, #plan-row > div, #bench-row > div, #bench-plots-2 > div { width: 100% !important;
    min-width: 0 !important; }
  /* plots keep a legible size (their text at 10-12 px) and scroll sideways inside their card */
  #bench-outputs .bench-svg svg { max-width: none; }
  .plan-svg { overflow-x: auto; }
  .plan-svg svg { width: 480px; max-width: none; }
  /* the leaderboard's and the grid's first column stays while the rest scrolls */
  .bench-table tbody th, .bench-table thead th:first-child, .plan-grid tbody th, .plan-grid thead th:first-child {
    position: sticky; left: 0; z-index: 1; background: var(--block-background-fill); }
  .pane { min-height: 180px; }
  .pane-head { flex-wrap: wrap; }
  .pane-subtitle { white-space: normal; }
  .pane-foot { flex-wrap: wrap; }
  .pane-body { max-height: 260px; font-size: 0.95rem; }
  .rate-value { font-size: 1.5rem; }
  .hw-grid { grid-template-columns: auto minmax(0, 1fr) auto; }
  .hw-grid > span:nth-child(6n+4), .hw-grid > span:nth-child(6n+5), .hw-grid > span:nth-child(6n) { display: none; }
  .chart-svg { max-width: 100%; height: auto; }
  #legend-row > #show-rejected { align-self: flex-start; }
  #race-buttons > #race-mode { order: 1; flex: 1 1 100% !important; width: 100% !important; }
  .plan-card, .plan-headline, .why, .stats, .chart { overflow-x: auto; max-width: 100%; box-sizing: border-box; }
  #plan-row .row > * { flex: 1 1 100% !important; min-width: 0 !important; }
  /* the alpha x c table scrolls inside its card (the card and block paddings take about 76 px) */
  #plan-figs > div, #plan-money > div { width: 100% !important; max-width: 100% !important; overflow-x: auto; }
  .plan-scroll { max-width: calc(100vw - 76px); }
}

/* ---- replay tab, race downloads and share link ---- */
#race-downloads { gap: 8px; flex-wrap: wrap; }
#race-downloads > * { flex: 0 1 auto !important; min-width: 0 !important; }
.replay-intro { font-size: 0.9rem; padding: 2px 2px 4px; }
.replay-note { margin-top: 6px; padding: 6px 10px; border-radius: 8px; font-size: 0.84rem; background: rgba(230,159,0,.12);
  border-left: 4px solid #E69F00; }
.replay-empty { color: var(--body-text-color-subdued); font-size: 0.92rem; padding: 18px 16px; border-radius: 12px;
  border: 1px dashed var(--border-color-primary); }
.replay-frame { display: block; width: 100%; height: 900px; border: 0; border-radius: 12px; background: transparent; }
#replay-gallery { overflow-x: auto; }
@media (max-width: 600px) { #replay-gallery th:nth-child(3), #replay-gallery td:nth-child(3) { display: none; } }

/* ---- benchmark tab ---- */
.bench-hint { font-size: 0.78rem; color: var(--body-text-color-subdued); padding: 0 4px; }
.bench-empty { padding: 18px; border: 1px dashed var(--border-color-primary); border-radius: 12px;
  color: var(--body-text-color-subdued); font-size: 0.92rem; }
.bench-progress { padding: 8px 12px; border-radius: 8px; border: 1px solid rgba(0,114,178,.35);
  background: rgba(0,114,178,.05); font-size: 0.9rem; }
.bench-bar { height: 8px; border-radius: 4px; background: var(--border-color-primary); margin: 6px 0 4px; overflow: hidden; }
.bench-bar > span { display: block; height: 100%; background: #0072B2; transition: width .3s linear; }
.bench-progress-note { font-size: 0.8rem; color: var(--body-text-color-subdued); }
.bench-card { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 10px 14px;
  background: var(--block-background-fill); }
.bench-card-title span { font-weight: 400; font-size: 0.8rem; color: var(--body-text-color-subdued); margin-left: 6px; }
.bench-table { width: 100%; border-collapse: collapse; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
.bench-table th, .bench-table td { padding: 5px 8px; border: none; border-bottom: 1px solid var(--border-color-primary);
  text-align: left; background: none; }
.bench-card table, .bench-card tr { border: none; }
.bench-table thead th { font-size: 0.74rem; color: var(--body-text-color-subdued); font-weight: 600; white-space: nowrap; }
.bench-table th span { display: block; font-size: 0.72rem; color: var(--body-text-color-subdued); font-weight: 400; }
.bench-table td.bench-best { background: rgba(0,114,178,.14); }
.bench-table td.bench-best b { color: #0072B2; }
.bench-table .bench-loss, .bench-table td.bench-loss b { color: #a34700; }
.bench-table td.bench-loss { background: rgba(213,94,0,.08); }
.bench-mark { font-size: 0.78rem; margin-left: 3px; }
.bench-spread { display: block; font-size: 0.72rem; color: var(--body-text-color-subdued); }
.bench-none { color: var(--body-text-color-subdued); text-align: center; }
.bench-runs td, .bench-runs th { padding: 3px 6px; font-size: 0.8rem; }
.bench-svg { border: 1px solid var(--border-color-primary); border-radius: 12px; padding: 6px; background: #fff;
  overflow-x: auto; }
.bench-svg svg { max-width: 100%; height: auto; display: block; }
"""

#: Rules for gradio's own page frame, outside the app's ``.contain`` element. Gradio scopes the ``css`` launch
#: argument under ``.gradio-container .contain``, so these go in a <style> tag through ``head`` instead.
PAGE_CSS = """
@media (max-width: 640px) {
  /* gradio's 32 px side padding and a one-line bar of four tabs made every tab 462 px wide at 390 px */
  .gradio-container { padding: 0 !important; width: 100% !important; }
  .gradio-container .main { padding: 8px 4px !important; }
  .gradio-container .tab-wrapper, .gradio-container .tab-container { height: auto !important; }
  .gradio-container .tab-container { flex-wrap: wrap !important; }
  .gradio-container .tab-container > button { padding-left: 10px !important; padding-right: 10px !important; }
  .gradio-container .row { flex-wrap: wrap !important; }
  .gradio-container button, .gradio-container .form, .gradio-container .block { min-width: 0 !important; }
  /* flex items default to their content's width: a wide table or plot would widen every box up to the page */
  .gradio-container, .gradio-container .main, .gradio-container .wrap, .gradio-container .contain,
  .gradio-container .tabs, .gradio-container .row, .gradio-container .column { min-width: 0 !important; }
}
"""
