"""The replay page's inline CSS and JavaScript (nothing is fetched: system fonts, no imports, no URLs).

Token colours and underlines are the app's (Okabe-Ito palette, docs/DESIGN.md §3): accepted = blue
#0072B2 with a solid underline, resampled = orange #E69F00 dashed, bonus = reddish purple #CC79A7 double,
target = no mark. tests/test_replay_page.py checks that these rules equal the app theme's.

The script is a player over markup that already holds the whole race: every token is a span with
``data-t`` (seconds from its side's generate() start); the player hides the spans whose time has not come
and reveals them on a clock that runs at the chosen speed. Without JavaScript the page shows the final
result. ``?speed=X`` in the URL sets the starting speed (0.25 to 8); ``?autoplay=0`` starts paused. Embedded
in a frame (the app's Replay tab), it posts its height to the embedding page so the frame can fit it.
"""

CSS = """
:root { --bg: #f6f7f9; --card: #ffffff; --soft: #f1f3f6; --border: #dfe3ea; --text: #1d2433; --muted: #5b6577;
  --accent: #0072B2; color-scheme: light dark; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --card: #171a21; --soft: #1e222b; --border: #2c323d; --text: #e6e9ef; --muted: #9aa4b5;
    --accent: #56B4E9; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.45;
  font-family: ui-sans-serif, system-ui, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.wrap { max-width: 1280px; margin: 0 auto; padding: 14px 16px 28px; display: flex; flex-direction: column; gap: 12px; }
.rec-banner { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; padding: 8px 12px; border-radius: 10px;
  background: rgba(213,94,0,.09); border: 1px solid rgba(213,94,0,.45); font-size: 0.92rem; }
.rec-tag { display: inline-flex; align-items: center; gap: 6px; font-weight: 800; letter-spacing: .06em;
  text-transform: uppercase; color: #a34700; }
.rec-dot { width: 10px; height: 10px; border-radius: 50%; background: #D55E00; }
.hdr h1 { font-size: 1.4rem; margin: 0; letter-spacing: -0.01em; }
.hdr h1 span { font-weight: 400; color: var(--muted); }
.hdr p { margin: 2px 0 0; color: var(--muted); font-size: 0.95rem; overflow-wrap: anywhere; }
.controls { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 10px; }
.controls button, .speeds button { font: inherit; font-size: 0.9rem; font-weight: 700; min-height: 40px; padding: 6px 14px;
  border-radius: 8px; border: 1px solid var(--border); background: var(--card); color: var(--text); cursor: pointer; }
.controls #play { background: var(--accent); color: #fff; border-color: var(--accent); min-width: 110px; }
.speeds { display: inline-flex; flex-wrap: wrap; gap: 4px; }
.speeds button { min-width: 48px; padding: 6px 8px; font-weight: 600; }
.speeds button[aria-pressed=true] { background: rgba(0,114,178,.15); border-color: var(--accent); color: var(--accent); }
.clock { font-variant-numeric: tabular-nums; color: var(--muted); font-size: 0.9rem; }
.panes { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 14px; }
.pane { display: flex; flex-direction: column; min-width: 0; border-radius: 12px; background: var(--card);
  border: 1px solid var(--border); overflow: hidden; }
.pane-assisted { border-top: 4px solid #0072B2; }
.pane-baseline { border-top: 4px solid #8a94a6; }
.pane-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 10px; padding: 10px 14px 8px;
  border-bottom: 1px solid var(--border); }
.pane-titles { display: flex; flex-direction: column; min-width: 0; }
.pane-title { font-weight: 700; font-size: 1.08rem; }
.pane-subtitle { color: var(--muted); font-size: 0.84rem; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.pane-rate { display: flex; align-items: baseline; gap: 4px; font-variant-numeric: tabular-nums; }
.rate-value { font-size: 1.8rem; font-weight: 700; line-height: 1; }
.pane-assisted .rate-value { color: var(--accent); }
.rate-unit { color: var(--muted); font-size: 0.84rem; }
.pane-progress { height: 3px; background: var(--border); }
.pane-progress > span { display: block; height: 100%; background: #8a94a6; }
.pane-assisted .pane-progress > span { background: #0072B2; }
.pane-body { flex: 1 1 auto; min-height: 180px; max-height: 380px; overflow-y: auto; padding: 10px 14px; font-size: 1rem;
  line-height: 1.85; white-space: pre-wrap; word-break: break-word; overflow-wrap: anywhere; }
.pane-foot { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; padding: 7px 14px;
  border-top: 1px solid var(--border); font-size: 0.8rem; color: var(--muted); }
.phase-pill { padding: 1px 9px; border-radius: 999px; font-weight: 600; font-size: 0.74rem; text-transform: uppercase;
  letter-spacing: 0.04em; background: rgba(138,148,166,.18); color: var(--text); }
.phase-pill.phase-running { background: rgba(0,114,178,.15); color: var(--accent); }
.phase-pill.phase-done { background: rgba(0,158,115,.15); color: #007a59; }
.tok { border-radius: 3px; padding: 1px 0; -webkit-box-decoration-break: clone; box-decoration-break: clone; }
.tok-accepted { background: rgba(0,114,178,.16); border-bottom: 2px solid #0072B2; }
.tok-resampled { background: rgba(230,159,0,.24); border-bottom: 2px dashed #b87f00; }
.tok-bonus { background: rgba(204,121,167,.24); border-bottom: 3px double #a8548a; }
.tok-target { background: transparent; }
.tok-special { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.78em; opacity: .6; }
.tok-diverge { outline: 2px solid #D55E00; outline-offset: 1px; }
del.rej { display: none; color: #D55E00; text-decoration: line-through; text-decoration-thickness: 2px; opacity: .85;
  font-size: 0.88em; margin: 0 2px; padding: 0 2px; border-radius: 3px; background: rgba(213,94,0,.07); }
.show-rej del.rej { display: inline; }
.pane .tok[title] { cursor: help; }
.future, .show-rej del.rej.future { display: none; }
svg .round.future { visibility: hidden; }
.legend-row { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 6px 16px; }
.tok-legend { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; font-size: 0.86rem; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.legend-item .tok { padding: 0 6px; font-weight: 600; }
.legend-text { color: var(--muted); }
.legend-row label { font-size: 0.86rem; display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
.card { border: 1px solid var(--border); border-radius: 12px; padding: 12px 14px; background: var(--card); }
.card-title { font-weight: 700; font-size: 0.95rem; margin: 0 0 8px; }
.final-wait { display: none; color: var(--muted); font-size: 0.9rem; }
.hide-final .final { display: none; }
.hide-final .final-wait { display: block; }
.badges { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 10px; margin-bottom: 10px; }
.badge { display: inline-block; padding: 3px 12px; border-radius: 999px; font-weight: 700; font-size: 0.88rem; }
.badge-identical { background: rgba(0,158,115,.14); color: #00704f; border: 1px solid rgba(0,158,115,.5); }
.badge-diverged { background: rgba(230,159,0,.16); color: #8a5d00; border: 1px dashed #b87f00; }
.badge-unexpected { background: rgba(213,94,0,.14); color: #a34700; border: 1px solid #D55E00; }
.badge-why { color: var(--muted); font-size: 0.85rem; }
.stats-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 10px; }
.stat { padding: 9px 12px; border-radius: 10px; background: var(--soft); border: 1px solid var(--border); min-width: 0; }
.stat-value { font-size: 1.4rem; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
.stat-speedup .stat-value { color: var(--accent); font-size: 1.65rem; }
.stat-label { font-weight: 600; font-size: 0.84rem; }
.stat-note { color: var(--muted); font-size: 0.77rem; margin-top: 2px; }
.verdict { margin-top: 10px; padding: 8px 12px; border-radius: 8px; background: rgba(0,114,178,.07);
  border-left: 4px solid #0072B2; font-size: 0.92rem; }
.chart-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 8px; font-size: 0.8rem; color: var(--muted);
  margin: 0 0 6px; }
.key { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-left: 6px; }
.key-accepted { background: #0072B2; }
.key-rejected { background: repeating-linear-gradient(45deg, #E69F00 0 2px, rgba(230,159,0,.25) 2px 4px);
  border: 1px solid #b87f00; }
.key-none { background: #8a94a6; height: 4px; }
.chart-svg { display: block; max-width: 100%; height: auto; }
.chart-svg .bar-accepted { fill: #0072B2; }
.chart-svg .bar-rejected { stroke: #b87f00; stroke-width: 0.8; }
.chart-svg .bar-rejected-bg { fill: rgba(230,159,0,.25); }
.chart-svg .bar-rejected-line { stroke: #E69F00; stroke-width: 2.2; }
.chart-svg .bar-none { fill: #8a94a6; }
.chart-svg .grid { stroke: var(--border); stroke-width: 1; }
.chart-svg .axis { fill: var(--muted); font-size: 12px; }
details.setup summary { cursor: pointer; font-weight: 700; font-size: 0.95rem; }
details.setup pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); padding: 8px 10px;
  border-radius: 8px; font-size: 0.88rem; margin: 8px 0; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 3px 12px; margin: 0; font-size: 0.86rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.provenance { font-size: 0.8rem; color: var(--muted); overflow-wrap: anywhere; }
@media (max-width: 720px) {
  .panes { grid-template-columns: minmax(0, 1fr); }
  .wrap { padding: 10px 10px 24px; }
  .pane-body { min-height: 110px; max-height: 300px; }
  .stat-value { font-size: 1.2rem; }
  .stat-speedup .stat-value { font-size: 1.45rem; }
}
@media (prefers-color-scheme: dark) {
  .tok-accepted { background: rgba(86,180,233,.22); border-bottom-color: #56B4E9; }
  .tok-resampled { background: rgba(230,159,0,.28); border-bottom-color: #E69F00; }
  .tok-bonus { background: rgba(204,121,167,.30); border-bottom-color: #CC79A7; }
  .badge-identical, .phase-pill.phase-done { color: #5fd3a9; }
  .badge-diverged { color: #f0c05a; }
  .badge-unexpected, .rec-tag { color: #ff9a57; }
}
"""

JS = r"""
(function () {
  "use strict";
  var body = document.body;
  function num(x, d) { var v = parseFloat(x); return isFinite(v) ? v : d; }
  function clampSpeed(v) { return Math.min(8, Math.max(0.25, v)); }
  function all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  var query = new URLSearchParams(window.location.search);
  var speed = clampSpeed(num(query.get("speed"), num(body.getAttribute("data-speed"), 1)));
  var panes = all(".pane[data-side]").map(function (el) {
    var items = all(".pane-body [data-t]", el);
    return { el: el, items: items, times: items.map(function (x) { return num(x.getAttribute("data-t"), 0); }),
      isTok: items.map(function (x) { return x.classList.contains("tok"); }),
      seconds: num(el.getAttribute("data-seconds"), 0), ttft: el.getAttribute("data-ttft"),
      max: num(el.getAttribute("data-max"), 0), body: el.querySelector(".pane-body"),
      rate: el.querySelector(".rate-value"), bar: el.querySelector(".pane-progress > span"),
      pill: el.querySelector(".phase-pill"), meta: el.querySelector(".pane-meta"), next: 0, shown: 0 };
  });
  var bars = all("svg .round[data-t]");
  var barTimes = bars.map(function (b) { return num(b.getAttribute("data-t"), 0); });
  var duration = panes.reduce(function (m, p) {
    return Math.max(m, p.seconds, p.times.length ? p.times[p.times.length - 1] : 0); }, 0);
  var clock = 0, ended = false, timer = null, lastTick = 0;
  var clockEl = document.getElementById("clock"), playBtn = document.getElementById("play");

  function reset() {
    clock = 0; ended = false;
    panes.forEach(function (p) {
      p.items.forEach(function (x) { x.classList.add("future"); });
      p.next = 0; p.shown = 0; p.body.scrollTop = 0;
    });
    bars.forEach(function (b) { b.classList.add("future"); });
    body.classList.add("hide-final");
  }
  function advance(p) {
    var b = p.body, atEnd = b.scrollHeight - b.scrollTop - b.clientHeight < 48, moved = false;
    while (p.next < p.items.length && p.times[p.next] <= clock + 1e-9) {
      p.items[p.next].classList.remove("future");
      if (p.isTok[p.next]) { p.shown++; }
      p.next++; moved = true;
    }
    if (moved && atEnd) { b.scrollTop = b.scrollHeight; }
  }
  function paneView(p) {
    var done = clock >= p.seconds - 1e-9, t = Math.min(clock, p.seconds);
    p.rate.textContent = p.shown && t > 0 ? (p.shown / t).toFixed(1) : "\u2013";
    var share = done ? 100 : (p.max ? Math.min(100, 100 * p.shown / p.max) : 0);
    p.bar.style.width = share.toFixed(1) + "%";
    p.pill.className = "phase-pill phase-" + (done ? "done" : "running");
    p.pill.textContent = done ? "done" : "replaying";
    p.el.setAttribute("data-phase", done ? "done" : "running");
    var meta = [p.shown + " tokens"];
    if (p.ttft !== null && p.shown) { meta.push("first token " + num(p.ttft, 0).toFixed(2) + " s"); }
    if (done) { meta.push(p.seconds.toFixed(2) + " s"); }
    p.meta.textContent = meta.join(" \u00b7 ");
  }
  function render() {
    panes.forEach(function (p) { advance(p); paneView(p); });
    bars.forEach(function (b, i) { if (barTimes[i] <= clock + 1e-9) { b.classList.remove("future"); } });
    if (clockEl) { clockEl.textContent = clock.toFixed(2) + " s of " + duration.toFixed(2) + " s (recorded time)"; }
  }
  function setState(state) {
    body.setAttribute("data-state", state);
    if (!playBtn) { return; }
    playBtn.textContent = state === "playing" ? "\u275a\u275a Pause" : state === "ended" ? "\u21bb Replay" : "\u25b6 Play";
    playBtn.setAttribute("aria-label", state === "playing" ? "pause" : "play");
  }
  function stopTimer() { if (timer !== null) { clearInterval(timer); timer = null; } }
  function finish() {
    stopTimer(); clock = duration; ended = true; render();
    body.classList.remove("hide-final"); setState("ended");
  }
  function tick() {
    var now = performance.now();
    clock += (now - lastTick) / 1000 * speed; lastTick = now;
    if (clock >= duration) { finish(); } else { render(); }
  }
  function play() {
    if (ended) { reset(); }
    stopTimer(); lastTick = performance.now(); timer = setInterval(tick, 30);
    setState("playing"); render();
  }
  function pause() { stopTimer(); setState("paused"); }
  function toggle() { if (body.getAttribute("data-state") === "playing") { pause(); } else { play(); } }
  function showSpeed() {
    all(".speeds button").forEach(function (b) {
      b.setAttribute("aria-pressed", String(num(b.getAttribute("data-speed"), 0) === speed));
    });
  }
  all(".speeds button").forEach(function (b) {
    b.addEventListener("click", function () { speed = clampSpeed(num(b.getAttribute("data-speed"), 1)); showSpeed(); });
  });
  if (playBtn) { playBtn.addEventListener("click", toggle); }
  var restart = document.getElementById("restart"), end = document.getElementById("end");
  if (restart) { restart.addEventListener("click", function () { reset(); play(); }); }
  if (end) { end.addEventListener("click", finish); }
  var rej = document.getElementById("show-rej");
  if (rej) { rej.addEventListener("change", function () { body.classList.toggle("show-rej", rej.checked); }); }
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (e.key === " " && !/^(BUTTON|INPUT|SELECT|TEXTAREA|SUMMARY)$/.test(tag)) { e.preventDefault(); toggle(); }
  });
  if (window.parent !== window) {  // embedded (the app's Replay tab): tell the page how tall this is
    var main = document.querySelector("main"), posted = 0;
    var post = function () {  // a frame off screen may get no resize callbacks: the timer is the fallback
      var h = Math.ceil(main.getBoundingClientRect().height);
      if (h > 0 && Math.abs(h - posted) > 1) { posted = h; window.parent.postMessage({ arenaReplayHeight: h + 4 }, "*"); }
    };
    if (window.ResizeObserver) { new ResizeObserver(post).observe(main); }
    window.addEventListener("load", post);
    setInterval(post, 500);
    post();
  }
  showSpeed(); reset();
  if (query.get("autoplay") === "0") { render(); setState("paused"); } else { play(); }
})();
"""
