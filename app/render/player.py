"""The player: one script that replays a race from markup that already holds all of it (docs/DESIGN.md §4.3),
revealing tokens and chart bars at their ``data-t``; embedded in a frame, it posts its height to the page."""

SPEEDS = (0.25, 0.5, 1, 2, 4, 8)

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
