/* The one player of a race (docs/DESIGN.md §4.9): it draws both panes, every token with its status and tooltip, the
 * live rates, the fair race's replay of plain's run and a recording's clock from the race's data
 * (app/render/race_data.py), on the Race tab (live frames from the server), the Replay tab and the self-contained
 * replay page (a whole recording). Plain ES5, no dependencies: the replay page works from a file. */
(function (global) {
  "use strict";

  var T_ID = 0, T_TEXT = 1, T_STATUS = 2, T_TIME = 3, T_PT = 4, T_PD = 5, T_MARK = 6;
  var R_DRAFTED = 0, R_ACCEPTED = 1, R_REJECTED = 2, R_PT = 3, R_PD = 4;
  var SIDES = ["baseline", "assisted"];
  var EPS = 1e-9;
  var SPEEDS = [0.25, 0.5, 1, 2, 4, 8];

  function now() { return (global.performance && global.performance.now) ? global.performance.now() : Date.now(); }
  function make(tag, cls, text) {
    var el = document.createElement(tag);
    if (cls) { el.className = cls; }
    if (text !== undefined && text !== null) { el.textContent = text; }
    return el;
  }
  function say(template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, function (m, key) {
      return values && values[key] !== undefined ? values[key] : m;
    });
  }
  function fixed(x, places) { return (typeof x === "number" && isFinite(x)) ? x.toFixed(places) : "\u2013"; }
  function countUpTo(tokens, clock) {  // tokens whose time is at most `clock` (times never go back)
    var lo = 0, hi = tokens.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (tokens[mid][T_TIME] <= clock + EPS) { lo = mid + 1; } else { hi = mid; }
    }
    return lo;
  }

  /* ---- one pane ------------------------------------------------------------------------------------------ */
  function Pane(parent, name) {
    this.name = name;
    this.host = make("div", "pane-host");
    this.host.id = "pane-" + name;
    var s = this.section = make("section", "pane pane-" + name + " phase-idle");
    s.setAttribute("data-side", name);
    var head = make("div", "pane-head"), titles = make("div", "pane-titles");
    this.title = make("span", "pane-title");
    this.subtitle = make("span", "pane-subtitle");
    titles.appendChild(this.title);
    titles.appendChild(this.subtitle);
    var rate = make("div", "pane-rate");
    this.rate = make("span", "rate-value", "\u2013");
    this.unit = make("span", "rate-unit");
    rate.appendChild(this.rate);
    rate.appendChild(this.unit);
    head.appendChild(titles);
    head.appendChild(rate);
    this.progress = make("div", "pane-progress");
    this.bar = make("span");
    this.progress.appendChild(this.bar);
    this.body = make("div", "pane-body");
    this.text = make("span", "pane-tokens");
    this.placeholder = make("span", "pane-placeholder");
    this.message = make("div", "pane-message");
    this.cursor = make("span", "cursor");
    this.cursor.setAttribute("aria-hidden", "true");
    this.body.appendChild(this.text);
    this.body.appendChild(this.placeholder);
    this.body.appendChild(this.message);
    this.body.appendChild(this.cursor);
    var foot = make("div", "pane-foot");
    this.pill = make("span", "phase-pill");
    this.meta = make("span", "pane-meta");
    foot.appendChild(this.pill);
    foot.appendChild(this.meta);
    s.appendChild(head);
    s.appendChild(this.progress);
    s.appendChild(this.body);
    s.appendChild(foot);
    this.host.appendChild(s);
    parent.appendChild(this.host);
    this.reset();
  }
  Pane.prototype.reset = function () {
    this.spans = [];      // one span per token, in order
    this.dels = [];       // the rejected draft shown before a resampled token (or null)
    this.keys = [];       // what each span was drawn from (text and status)
    this.rounds = [];     // round index of each token (null: unknown)
    this.titled = [];     // whether a token's tooltip already holds its round
    this.closing = 0;     // round index the next token belongs to
    this.shown = 0;       // tokens visible (the rest carry the class "future")
    this.diverge = null;
    this.text.textContent = "";
  };
  Pane.prototype.tooltip = function (i, tok, words, rounds) {
    if (this.name !== "assisted") { return "#" + i + " " + words.id + " " + tok[T_ID]; }
    var status = tok[T_STATUS], label = status === "pending" ? words.pending : (words.status[status] || status);
    var head = "#" + i + " " + label + (tok[T_MARK] ? " \u00b7 " + String(tok[T_TEXT]).trim() : "");
    var lines = [head + " \u00b7 " + words.id + " " + tok[T_ID]];
    var probs = [];
    if (tok[T_PT] !== null && tok[T_PT] !== undefined) { probs.push(words.target + " p=" + fixed(tok[T_PT], 2)); }
    if (tok[T_PD] !== null && tok[T_PD] !== undefined) { probs.push(words.drafter + " p=" + fixed(tok[T_PD], 2)); }
    if (probs.length) { lines.push(probs.join(", ")); }
    var r = this.rounds[i], rnd = r === null || r === undefined ? null : rounds[r];
    if (r !== null && r !== undefined) { lines.push(this.roundNote(r, rnd, words)); }
    if (status === "resampled" && rnd && rnd[R_REJECTED]) {
      var rej = [];
      if (rnd[R_PT] !== null && rnd[R_PT] !== undefined) { rej.push(words.target + " p=" + fixed(rnd[R_PT], 2)); }
      if (rnd[R_PD] !== null && rnd[R_PD] !== undefined) { rej.push(words.drafter + " p=" + fixed(rnd[R_PD], 2)); }
      lines.push(words.rejected_draft + ": \u201c" + rnd[R_REJECTED] + "\u201d" + (rej.length ? " (" + rej.join(", ") + ")" : ""));
    }
    return lines.join("\n");
  };
  Pane.prototype.roundNote = function (r, rnd, words) {
    return words.round + " " + (r + 1) + (rnd ? ": " + words.drafted + " " + rnd[R_DRAFTED] + ", " + words.accepted +
      " " + rnd[R_ACCEPTED] : "");
  };
  Pane.prototype.span = function (tok, i, words, rounds) {
    var status = tok[T_STATUS], el;
    if (tok[T_MARK]) {
      el = make("span", "tok tok-" + status + " tok-special", tok[T_MARK]);
      el.setAttribute("data-text", tok[T_TEXT]);
      el.setAttribute("aria-label", words.special);
    } else {
      el = make("span", "tok tok-" + status, tok[T_TEXT]);
    }
    el.setAttribute("data-t", tok[T_TIME]);
    el.title = this.tooltip(i, tok, words, rounds);
    return el;
  };
  Pane.prototype.trim = function (n) {  // forget tokens from index n on (their text or status changed)
    while (this.spans.length > n) {
      var el = this.spans.pop(), del = this.dels.pop();
      el.parentNode.removeChild(el);
      if (del) { del.parentNode.removeChild(del); }
      this.keys.pop();
      this.titled.pop();
    }
    this.rounds.length = n;
    this.closing = 0;
    for (var i = 0; i < n; i++) { if (this.keys[i].charAt(0) !== "a" && this.keys[i].charAt(0) !== "p") { this.closing++; } }
  };
  Pane.prototype.sync = function (side, words, divergeAt) {
    /* Make the DOM hold every token of `side` (visibility is show()'s), adding only what is new. */
    var tokens = side.tokens || [], rounds = side.rounds || [], i, first = Math.min(this.spans.length, tokens.length);
    for (i = 0; i < first; i++) {
      if (this.keys[i] !== tokens[i][T_STATUS].charAt(0) + tokens[i][T_TEXT]) { first = i; break; }
    }
    if (first < this.spans.length) { this.trim(first); this.shown = Math.min(this.shown, first); }
    var frag = document.createDocumentFragment();
    for (i = this.spans.length; i < tokens.length; i++) {
      var tok = tokens[i], status = tok[T_STATUS];
      this.rounds.push(status === "pending" || this.name !== "assisted" ? null : this.closing);
      if (this.name === "assisted" && status !== "accepted" && status !== "pending") { this.closing++; }
      var el = this.span(tok, i, words, rounds);
      el.classList.add("future");
      this.spans.push(el);
      this.dels.push(null);
      this.keys.push(status.charAt(0) + tok[T_TEXT]);
      this.titled.push(this.rounds[i] === null);  // else refreshRounds() completes it once its round is known
      frag.appendChild(el);
    }
    this.text.appendChild(frag);
    this.refreshRounds(tokens, rounds, words);
    this.outline(divergeAt);
  };
  Pane.prototype.refreshRounds = function (tokens, rounds, words) {
    /* Rounds may arrive a frame after their tokens: complete the tooltips and rejected drafts they now explain. */
    for (var i = this.spans.length - 1; i >= 0; i--) {
      if (this.titled[i]) { break; }
      var r = this.rounds[i];
      if (r === null || r >= rounds.length) { continue; }
      this.titled[i] = true;
      this.spans[i].title = this.tooltip(i, tokens[i], words, rounds);
      var rnd = rounds[r];
      if (tokens[i][T_STATUS] === "resampled" && rnd[R_REJECTED] && !this.dels[i]) {
        var del = make("del", "rej", rnd[R_REJECTED]);
        del.title = words.rejected_draft + " \u00b7 " + this.roundNote(r, rnd, words);
        del.setAttribute("data-t", tokens[i][T_TIME]);
        if (this.spans[i].classList.contains("future")) { del.classList.add("future"); }
        this.text.insertBefore(del, this.spans[i]);
        this.dels[i] = del;
      }
    }
  };
  Pane.prototype.outline = function (at) {
    if (this.diverge === at) { return; }
    if (this.diverge !== null && this.spans[this.diverge]) { this.spans[this.diverge].classList.remove("tok-diverge"); }
    this.diverge = at === undefined ? null : at;
    if (this.diverge !== null && this.spans[this.diverge]) { this.spans[this.diverge].classList.add("tok-diverge"); }
  };
  Pane.prototype.show = function (n) {
    /* Reveal the first n tokens, hide the rest; keep the view at the newest token when it was there. */
    n = Math.max(0, Math.min(n, this.spans.length));
    if (n === this.shown) { return; }
    var b = this.body, atEnd = b.scrollHeight - b.scrollTop - b.clientHeight < 48, i;
    for (i = Math.min(n, this.shown); i < Math.max(n, this.shown); i++) { this.hide(i, i >= n); }
    this.shown = n;
    if (atEnd) { b.scrollTop = b.scrollHeight; }
  };
  Pane.prototype.hide = function (i, hidden) {
    this.spans[i].classList.toggle("future", hidden);
    if (this.dels[i]) { this.dels[i].classList.toggle("future", hidden); }
  };
  Pane.prototype.view = function (v, words) {
    /* v: {title, subtitle, phase, rate, shown, ttft, seconds, rounds, max, message, placeholder}. */
    var phase = words.phase[v.phase] ? v.phase : "idle";
    this.section.className = "pane pane-" + this.name + " phase-" + phase;
    this.section.setAttribute("data-phase", phase);
    this.section.setAttribute("aria-label", v.title);
    this.title.textContent = v.title;
    this.subtitle.textContent = v.subtitle;
    this.subtitle.title = v.subtitle;
    this.unit.textContent = words.rate_unit;
    this.rate.textContent = v.rate === null ? "\u2013" : fixed(v.rate, 1);
    var share = phase === "done" ? 100 : (v.max ? Math.min(100, 100 * v.shown / v.max) : 0);
    this.bar.style.width = share.toFixed(1) + "%";
    this.progress.title = words.share;
    this.pill.className = "phase-pill phase-" + phase;
    this.pill.textContent = v.pill || words.phase[phase];
    var meta = [v.shown + " " + words.tokens];
    if (v.ttft !== null && v.ttft !== undefined && v.shown) { meta.push(words.first_token + " " + fixed(v.ttft, 2) + " s"); }
    if (v.seconds && (phase === "done" || phase === "stopped")) { meta.push(fixed(v.seconds, 2) + " s"); }
    if (this.name === "assisted" && v.rounds) { meta.push(v.rounds + " " + words.rounds); }
    this.meta.textContent = meta.join(" \u00b7 ");
    var empty = v.shown === 0;
    this.placeholder.textContent = empty ? (v.message || (phase === "idle" ? words.press_race : "\u2026")) : "";
    this.placeholder.style.display = empty ? "" : "none";
    this.message.textContent = empty ? "" : (v.message || "");
    this.message.style.display = !empty && v.message ? "" : "none";
    this.cursor.style.display = phase === "running" || phase === "replay" ? "" : "none";
  };

  /* ---- the player ---------------------------------------------------------------------------------------- */
  function Player(root, options) {
    options = options || {};
    this.root = root;
    this.doc = options.controls || null;  // where a recording's controls are (the replay page's document)
    root.classList.add("race-player");
    this.grid = make("div", "panes");
    root.appendChild(this.grid);
    this.panes = {};
    for (var i = 0; i < SIDES.length; i++) { this.panes[SIDES[i]] = new Pane(this.grid, SIDES[i]); }
    this.data = null;
    this.raceId = null;
    this.frameAt = 0;      // when the latest data arrived (ms, performance clock)
    this.replayZero = null; // performance time at which the assisted side of a live fair race started
    this.clock = 0;        // a recording's clock (s of recorded time)
    this.speed = 1;
    this.playing = false;
    this.ended = false;
    this.timer = null;
    this.lastTick = 0;
    if (this.doc) { this.bindControls(); }
  }
  Player.prototype.update = function (data) {
    if (!data || data.v !== 1 || !data.sides) { return; }
    if (data.id !== this.raceId) {
      this.raceId = data.id;
      this.replayZero = null;
      for (var i = 0; i < SIDES.length; i++) { this.panes[SIDES[i]].reset(); }
    }
    this.data = data;
    this.frameAt = now();
    for (var j = 0; j < SIDES.length; j++) {
      this.panes[SIDES[j]].sync(data.sides[SIDES[j]], data.words, data.diverge_at);
    }
    if (data.clock === "recorded") {
      this.duration = this.recordedDuration();
      if (!this.doc) { this.ended = true; this.clock = this.duration; }
    }
    this.render();
    this.schedule();
  };
  Player.prototype.animating = function () {
    var d = this.data;
    if (!d) { return false; }
    if (d.clock === "recorded") { return this.playing; }
    if (d.state !== "racing") { return false; }
    return d.sides.baseline.phase === "running" || d.sides.assisted.phase === "running" || this.replaying();
  };
  Player.prototype.schedule = function () {
    if (this.timer !== null || !this.animating()) { return; }
    var self = this, step = function () {
      self.timer = null;
      self.tick();
      if (self.animating()) { self.timer = global.setTimeout(step, 40); }
    };
    this.lastTick = now();
    this.timer = global.setTimeout(step, 40);
  };
  Player.prototype.tick = function () {
    if (this.data && this.data.clock === "recorded" && this.playing) {
      var t = now();
      this.clock += (t - this.lastTick) / 1000 * this.speed;
      this.lastTick = t;
      if (this.clock >= this.duration) { this.finish(); return; }
    }
    this.render();
  };

  /* ---- live: the server's frames ---- */
  Player.prototype.replaying = function () {
    /* A live fair race replays plain's recorded run from zero once the assisted side has started. */
    var d = this.data, b = d.sides.baseline, a = d.sides.assisted;
    return d.mode === "sequential" && d.state === "racing" && b.phase === "done" && a.started;
  };
  Player.prototype.liveView = function (name) {
    var d = this.data, s = d.sides[name], w = d.words, n = s.tokens.length;
    var dt = (now() - this.frameAt) / 1000, elapsed = s.elapsed === null ? null : s.elapsed + (s.phase === "running" ? dt : 0);
    var v = {title: s.title, subtitle: s.subtitle, phase: s.phase, shown: n, ttft: s.ttft, seconds: s.seconds,
      rounds: s.rounds.length, max: s.max, message: s.message, rate: null};
    if (s.phase === "done" || s.phase === "stopped") { v.rate = n && s.seconds > 0 ? n / s.seconds : null; }
    else if (s.phase === "running" && elapsed > 0 && n) { v.rate = n / elapsed; }
    if (name !== "baseline" || d.mode !== "sequential" || d.state !== "racing") { return v; }
    if (d.kept && !d.sides.assisted.started && s.phase === "done") {
      v.shown = 0; v.phase = "waiting"; v.rate = null; v.message = say(w.kept_waiting, {time: d.kept});
    } else if (this.replaying()) {
      if (this.replayZero === null) { this.replayZero = this.frameAt - 1000 * (d.sides.assisted.elapsed || 0); }
      var clock = (now() - this.replayZero) / 1000, shown = countUpTo(s.tokens, clock);
      v.shown = shown;
      v.rate = shown && clock > 0 ? shown / Math.min(clock, s.seconds || clock) : null;
      v.subtitle = s.subtitle + " \u00b7 " + (d.kept ? say(w.kept_from, {time: d.kept}) : w.recorded_now);
      if (clock < (s.seconds || 0)) { v.phase = "replay"; v.seconds = null; }
    }
    return v;
  };

  /* ---- recorded: the player's own clock ---- */
  Player.prototype.offset = function () {
    /* Seconds of the recording before the assisted side starts: plain's whole run when it ran first. */
    var d = this.data;
    return d.mode === "sequential" && d.plain_first ? (d.sides.baseline.seconds || 0) : 0;
  };
  Player.prototype.recordedDuration = function () {
    var b = this.data.sides.baseline, a = this.data.sides.assisted;
    var end = function (s) { return Math.max(s.seconds || 0, s.tokens.length ? s.tokens[s.tokens.length - 1][T_TIME] : 0); };
    return this.offset() + Math.max(end(b), end(a));
  };
  Player.prototype.sideClock = function (name) {
    var off = this.offset();
    if (name === "baseline" && this.clock < off) { return this.clock; }
    return this.clock - off;
  };
  Player.prototype.recordedView = function (name) {
    var d = this.data, s = d.sides[name], w = d.words, clock = this.sideClock(name);
    var seconds = s.seconds || 0, done = this.ended || clock >= seconds - EPS, shown = this.ended ? s.tokens.length : countUpTo(s.tokens, clock);
    var v = {title: s.title, subtitle: s.subtitle, shown: shown, ttft: s.ttft, seconds: s.seconds, max: s.max, message: "",
      rounds: this.ended ? s.rounds.length : 0, rate: null, phase: done ? "done" : "running", pill: done ? null : w.replaying};
    if (name === "assisted" && !this.ended) { v.rounds = this.roundsUpTo(clock); }
    var t = Math.min(Math.max(clock, 0), seconds);
    v.rate = shown && t > 0 ? shown / t : null;
    if (clock < 0) { v.phase = "waiting"; v.pill = null; v.message = w.waiting_plain; }
    else if (name === "baseline" && d.mode === "sequential" && this.clock >= this.offset() && d.plain_first && !done) {
      v.phase = "replay"; v.pill = null;
    }
    return v;
  };
  Player.prototype.roundsUpTo = function (clock) {  // rounds whose tokens have appeared by `clock`
    var s = this.data.sides.assisted, n = countUpTo(s.tokens, clock), r = 0;
    for (var i = 0; i < n; i++) { if (s.tokens[i][T_STATUS] !== "accepted") { r++; } }
    return Math.min(r, s.rounds.length);
  };
  Player.prototype.render = function () {
    if (!this.data) { return; }
    var recorded = this.data.clock === "recorded";
    for (var i = 0; i < SIDES.length; i++) {
      var name = SIDES[i], v = recorded ? this.recordedView(name) : this.liveView(name);
      this.panes[name].show(v.shown);
      this.panes[name].view(v, this.data.words);
    }
    if (recorded && this.doc) { this.renderRecording(); }
  };
  Player.prototype.renderRecording = function () {
    var clock = this.sideClock("assisted"), bars = this.doc.querySelectorAll("svg .round[data-t]");
    for (var i = 0; i < bars.length; i++) {
      bars[i].classList.toggle("future", !this.ended && parseFloat(bars[i].getAttribute("data-t")) > clock + EPS);
    }
    var el = this.doc.getElementById("clock");
    if (el) { el.textContent = say(this.data.words.clock, {now: this.clock.toFixed(2), total: this.duration.toFixed(2)}); }
  };

  /* ---- a recording's controls (the replay page) ---- */
  Player.prototype.setState = function (state) {
    var body = this.doc.body, btn = this.doc.getElementById("play"), w = this.data ? this.data.words : null;
    body.setAttribute("data-state", state);
    body.classList.toggle("hide-final", state !== "ended" && state !== "static");
    if (btn && w) {
      btn.textContent = state === "playing" ? w.pause : state === "ended" ? w.again : w.play;
      btn.setAttribute("aria-label", state === "playing" ? "pause" : "play");
    }
  };
  Player.prototype.rewind = function () { this.clock = 0; this.ended = false; this.render(); };
  Player.prototype.play = function () {
    if (this.ended) { this.rewind(); }
    this.playing = true;
    this.setState("playing");
    this.render();
    this.schedule();
  };
  Player.prototype.pause = function () { this.playing = false; this.setState("paused"); };
  Player.prototype.finish = function () {
    this.playing = false; this.ended = true; this.clock = this.duration;
    this.render();
    this.setState("ended");
  };
  Player.prototype.toggle = function () { if (this.playing) { this.pause(); } else { this.play(); } };
  Player.prototype.setSpeed = function (x) {
    var v = parseFloat(x);
    this.speed = Math.min(8, Math.max(0.25, isFinite(v) ? v : 1));
    var buttons = this.doc.querySelectorAll(".speeds button");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", String(parseFloat(buttons[i].getAttribute("data-speed")) === this.speed));
    }
  };
  Player.prototype.bindControls = function () {
    var self = this, doc = this.doc, on = function (id, fn) {
      var el = doc.getElementById(id);
      if (el) { el.addEventListener("click", fn); }
    };
    on("play", function () { self.toggle(); });
    on("restart", function () { self.rewind(); self.play(); });
    on("end", function () { self.finish(); });
    var buttons = doc.querySelectorAll(".speeds button");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function (e) { self.setSpeed(e.currentTarget.getAttribute("data-speed")); });
    }
    var rej = doc.getElementById("show-rej");
    if (rej) { rej.addEventListener("change", function () { doc.body.classList.toggle("show-rej", rej.checked); }); }
    doc.addEventListener("keydown", function (e) {
      var tag = (e.target && e.target.tagName) || "";
      if (e.key === " " && !/^(BUTTON|INPUT|SELECT|TEXTAREA|SUMMARY)$/.test(tag)) { e.preventDefault(); self.toggle(); }
    });
  };

  /* ---- the replay page: boot from its embedded data, and tell an embedding page its height ---- */
  function bootReplayPage() {
    var doc = document, holder = doc.getElementById("race-data"), root = doc.getElementById("player");
    if (!holder || !root) { return null; }
    var query = new URLSearchParams(global.location.search), body = doc.body;
    var player = global.ArenaPlayer.mount(root, {controls: doc});
    player.update(JSON.parse(holder.textContent));
    player.setSpeed(query.get("speed") || body.getAttribute("data-speed") || 1);
    if (query.get("autoplay") === "0") { player.rewind(); player.setState("paused"); } else { player.play(); }
    if (global.parent !== global) { postHeight(doc.querySelector("main")); }
    return player;
  }
  function postHeight(main) {  // a frame off screen may get no resize callbacks: the timer is the fallback
    var posted = 0, post = function () {
      var h = Math.ceil(main.getBoundingClientRect().height);
      if (h > 0 && Math.abs(h - posted) > 1) { posted = h; global.parent.postMessage({arenaReplayHeight: h + 4}, "*"); }
    };
    if (global.ResizeObserver) { new global.ResizeObserver(post).observe(main); }
    global.addEventListener("load", post);
    global.setInterval(post, 500);
    post();
  }

  /* ---- the app's page: small helpers its events call ---- */
  function showPanes() {  // on a phone the panes sit below the controls: bring them into view when Race is pressed
    var row = document.getElementById("race-row");
    if (!row) { return; }
    var r = row.getBoundingClientRect();
    if (r.top < 0 || r.bottom > global.innerHeight) { row.scrollIntoView(); }
  }
  function showRejected(show) { document.body.classList.toggle("show-rej", !!show); }
  function fitFrames(element) {  // the Replay tab's frame takes the height its replay page reports
    global.addEventListener("message", function (e) {
      var frame = element.querySelector("iframe.replay-frame"), h = e.data && e.data.arenaReplayHeight;
      if (frame && e.source === frame.contentWindow && typeof h === "number" && h >= 100) {
        frame.style.height = Math.min(h, 20000) + "px";
      }
    });
  }

  global.ArenaPlayer = {
    showPanes: showPanes,
    showRejected: showRejected,
    fitFrames: fitFrames,
    SPEEDS: SPEEDS,
    mount: function (root, options) { root.arenaPlayer = new Player(root, options); return root.arenaPlayer; },
    bootReplayPage: bootReplayPage
  };
})(window);
