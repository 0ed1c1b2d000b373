(function () {
  "use strict";
  // Every value from the data is written with textContent: never as HTML.
  var DATA = JSON.parse(document.getElementById("assay-data").textContent);
  var STATUSES = DATA.statuses;
  var TRIALS = DATA.trials;
  var PAGE_SIZE = 100;
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  var KNOWN = ["id", "slice", "trial", "synthetic", "question", "expected_behavior", "expected_fact",
    "rationale", "outcome", "fact", "text", "status", "reason", "grader", "case_hash",
    "source_revision", "checks", "judgments", "expected_label", "outcome_label", "raw",
    "input_tokens", "output_tokens", "latency_ms", "transcript", "traceback", "abstain_reason",
    "agent", "trajectory"];

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function label(row) { return TRIALS > 1 ? row.id + " #" + row.trial : row.id; }
  function expected(row) {
    if (row.expected_label) { return row.expected_label; }
    return row.expected_behavior + (row.expected_fact ? " " + row.expected_fact : "");
  }
  function got(row) {
    if (row.outcome_label) { return row.outcome_label; }
    if (!row.outcome) { return "none recorded"; }
    return row.outcome + (row.fact ? " " + row.fact : "");
  }
  function badge(status) {
    var known = STATUSES.indexOf(status) >= 0 ? status : "ungraded";
    return el("span", "badge st-" + known, status);
  }
  var SORT_KEYS = {
    id: function (r) { return r.id; },
    slice: function (r) { return r.slice; },
    expected: expected,
    got: got,
    status: function (r) { return STATUSES.indexOf(r.status); },
    reason: function (r) { return r.reason; }
  };
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    return collator.compare(String(a), String(b));
  }

  /* the case table */
  // This page's rows are the case objects themselves.
  CaseTable.prototype.row = function (r) { return r; };
  CaseTable.prototype.open = function (r) { openDrawer(r); };
  CaseTable.prototype.tally = function () {
    var counts = new Map();
    this.rows.forEach(function (r) { counts.set(r.status, (counts.get(r.status) || 0) + 1); });
    return { slices: Array.from(new Set(this.rows.map(function (r) { return r.slice; }))), counts: counts };
  };
  CaseTable.prototype.render = function () { this.draw(this.matching()); };

  CaseTable.prototype.matching = function () {
    var self = this;
    if (this.query && !this.hay) {
      this.hay = this.rows.map(function (r) {
        return [r.id, r.slice, r.question, r.expected_fact, r.fact, r.text, r.reason, r.outcome,
          r.rationale].join("\n").toLowerCase();
      });
    }
    var out = [];
    for (var i = 0; i < this.rows.length; i++) {
      var r = this.rows[i];
      if (self.only.size && !self.only.has(r.status)) { continue; }
      if (self.slice && r.slice !== self.slice) { continue; }
      if (self.query && self.hay[i].indexOf(self.query) < 0) { continue; }
      out.push(r);
    }
    if (this.sortKey) {
      var key = SORT_KEYS[this.sortKey];
      var dir = this.sortDir;
      out = out.map(function (r, i) { return [key(r), i, r]; });
      out.sort(function (a, b) { return dir * compare(a[0], b[0]) || a[1] - b[1]; });
      out = out.map(function (x) { return x[2]; });
    }
    return out;
  };

  // ---- the case drawer ----
  var drawer = document.getElementById("drawer");
  var scrim = document.getElementById("scrim");
  var body = drawer.querySelector(".drawer-body");

  function section(title, content) {
    body.appendChild(el("h3", null, title));
    body.appendChild(content);
  }
  function text(value, fallback) {
    return el("p", "field", value === null || value === undefined || value === "" ? fallback : value);
  }
  function kv(pairs) {
    var dl = el("dl", "kv");
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") { return; }
      dl.appendChild(el("dt", null, p[0]));
      dl.appendChild(el("dd", null, typeof p[1] === "object" ? JSON.stringify(p[1], null, 2) : p[1]));
    });
    return dl;
  }
  function shown(value) {
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
  function callText(call) {
    if (call.arguments !== null && call.arguments !== undefined) {
      return call.name + " " + JSON.stringify(call.arguments);
    }
    return call.name + " (unreadable arguments: " + shown(call.raw_arguments || "") + ")";
  }
  function trajectoryBox(agent, t) {
    var wrap = el("div", "transcript trajectory");
    if (agent) {
      wrap.appendChild(el("p", "field", agent.steps + " steps · " + agent.tool_calls +
        " tool calls · " + agent.tool_errors + " tool errors · " + agent.malformed_calls +
        " malformed calls · ended " + agent.ended));
    }
    if (t.state_before !== null && t.state_before !== undefined) {
      wrap.appendChild(el("p", "field", "state before"));
      wrap.appendChild(el("pre", "message", shown(t.state_before)));
    }
    (t.steps || []).forEach(function (s, i) {
      var failed = s.kind === "tool" && s.status !== "ok";
      var step = el("div", "step" + (failed ? " failed-step" : ""));
      step.setAttribute("data-step", String(i + 1));
      step.setAttribute("data-status", s.kind === "tool" ? s.status : "model");
      if (s.kind === "tool") {
        step.appendChild(el("p", "field", "step " + (i + 1) + " · tool " + s.call.name +
          " · " + s.status));
        step.appendChild(el("pre", "message", "arguments: " + callText(s.call)));
        if (s.result !== null && s.result !== undefined) {
          step.appendChild(el("pre", "message", "result: " + shown(s.result)));
        }
        if (s.error) { step.appendChild(el("pre", "message error", "error: " + s.error)); }
      } else {
        step.appendChild(el("p", "field", "step " + (i + 1) + " · model" +
          (s.finish_reason ? " (finish reason: " + s.finish_reason + ")" : "")));
        if (s.text) { step.appendChild(el("pre", "message", s.text)); }
        (s.tool_calls || []).forEach(function (c) {
          step.appendChild(el("pre", "message", "calls " + callText(c)));
        });
      }
      wrap.appendChild(step);
    });
    if (t.state_after !== null && t.state_after !== undefined) {
      wrap.appendChild(el("p", "field", "state after"));
      wrap.appendChild(el("pre", "message", shown(t.state_after)));
    }
    return wrap;
  }
  function judgmentBox(status, title, reason, extra) {
    var box = el("div", "judgment");
    var head = el("div");
    head.appendChild(badge(status));
    head.appendChild(document.createTextNode(" " + title));
    box.appendChild(head);
    box.appendChild(el("p", "field", reason || ""));
    if (extra && extra.length) { box.appendChild(kv(extra)); }
    return box;
  }
  function resultList(items) {
    var wrap = el("div");
    items.forEach(function (c) {
      var status = c.status || (c.passed === true ? "passed" : c.passed === false ? "failed" : "ungraded");
      var name = c.name || c.check || c.grader || "result";
      var extra = Object.keys(c).filter(function (k) {
        return ["status", "passed", "name", "check", "reason"].indexOf(k) < 0;
      }).map(function (k) { return [k, c[k]]; });
      wrap.appendChild(judgmentBox(status, name, c.reason, extra));
    });
    return wrap;
  }
  function waterfall(spans) {
    var wrap = el("div", "waterfall");
    var t0 = Math.min.apply(null, spans.map(function (s) { return s.start_ns; }));
    var t1 = Math.max.apply(null, spans.map(function (s) { return s.end_ns; }));
    var span = Math.max(t1 - t0, 1);
    var byId = {};
    spans.forEach(function (s) { byId[s.span_id] = s; });
    function depth(s) {
      var d = 0;
      while (s.parent_id && byId[s.parent_id] && d < 20) { s = byId[s.parent_id]; d += 1; }
      return d;
    }
    spans.forEach(function (s) {
      var row = el("div", "wf-row");
      var name = el("div", "wf-name", s.name);
      name.style.paddingLeft = (depth(s) * 12) + "px";
      name.title = s.name;
      var track = el("div", "wf-track");
      var bar = el("div", "wf-bar" + (s.status === "error" ? " error" : ""));
      bar.style.left = ((s.start_ns - t0) / span * 100) + "%";
      bar.style.width = ((s.end_ns - s.start_ns) / span * 100) + "%";
      track.appendChild(bar);
      row.appendChild(name);
      row.appendChild(track);
      row.appendChild(el("div", "wf-ms", ((s.end_ns - s.start_ns) / 1e6).toFixed(1) + " ms"));
      var attrs = Object.keys(s.attributes || {}).map(function (k) {
        return k + "=" + JSON.stringify(s.attributes[k]);
      });
      if (s.status_message) { attrs.unshift("status: " + s.status + " " + s.status_message); }
      if (attrs.length) { row.appendChild(el("div", "wf-attrs", attrs.join("\n"))); }
      wrap.appendChild(row);
    });
    return wrap;
  }

  function openDrawer(row) {
    if (!row) { return; }
    drawer.querySelector("[data-field=title]").textContent = label(row);
    drawer.querySelector("[data-field=slice]").textContent =
      "slice " + row.slice + (row.synthetic ? " · synthetic case, not in real totals" : "");
    body.replaceChildren();
    if ("question" in row) { section("Question", text(row.question, "—")); }
    if ("expected_behavior" in row) {
      section("Expected", kv([["behaviour", row.expected_behavior], ["fact", row.expected_fact || "—"]]));
    }
    if ("rationale" in row) { section("Rationale", text(row.rationale, "—")); }
    if ("outcome" in row) {
      section("Recorded outcome", row.outcome
        ? kv([["kind", row.outcome], ["fact", row.fact], ["raw text", row.text],
          ["why an abstention", row.abstain_reason]])
        : text(null, "No outcome was recorded for this case (missing)."));
    }
    section("Judgment", judgmentBox(row.status, row.grader, row.reason, []));
    if (row.raw) { section("Raw reply (could not be used)", text(row.raw, "—")); }
    if (row.traceback) {
      var tb = el("div", "transcript");
      tb.appendChild(el("pre", "message", row.traceback));
      section("Traceback (last frames)", tb);
    }
    if ("input_tokens" in row || "latency_ms" in row) {
      var unknown = "not reported";
      section("Usage", kv([
        ["input tokens", row.input_tokens === null || row.input_tokens === undefined ? unknown : row.input_tokens],
        ["output tokens", row.output_tokens === null || row.output_tokens === undefined ? unknown : row.output_tokens],
        ["latency", row.latency_ms === null || row.latency_ms === undefined ? unknown : row.latency_ms + " ms"]]));
    }
    if (row.transcript && Array.isArray(row.transcript.messages)) {
      var convo = el("div", "transcript");
      row.transcript.messages.forEach(function (m) {
        convo.appendChild(el("p", "field", m.role));
        convo.appendChild(el("pre", "message", m.content));
      });
      convo.appendChild(el("p", "field", "reply" + (row.transcript.finish_reason
        ? " (finish reason: " + row.transcript.finish_reason + ")" : "")));
      convo.appendChild(el("pre", "message", row.transcript.reply || ""));
      section("Transcript", convo);
    }
    if (row.trajectory && Array.isArray(row.trajectory.steps)) {
      section("Trajectory", trajectoryBox(row.agent, row.trajectory));
    }
    if (Array.isArray(row.checks) && row.checks.length) { section("Checks", resultList(row.checks)); }
    if (Array.isArray(row.judgments) && row.judgments.length) {
      section("Judge results", resultList(row.judgments));
    }
    var spans = DATA.spans[row.id + "#" + row.trial];
    if (spans && spans.length) { section("Trace", waterfall(spans)); }
    if (DATA.case_link) {
      var follow = el("a", "follow", "Follow " + row.id + " across runs →");
      follow.href = DATA.case_link + encodeURIComponent(row.id);
      var wrap = el("p");
      wrap.appendChild(follow);
      body.appendChild(wrap);
    }
    var other = Object.keys(row).filter(function (k) { return KNOWN.indexOf(k) < 0; });
    section("Case", kv([["trial", row.trial], ["source revision", row.source_revision],
      ["case hash", row.case_hash]].concat(other.map(function (k) { return [k, row[k]]; }))));
    drawer.classList.add("open");
    drawer.setAttribute("aria-hidden", "false");
    scrim.hidden = false;
    drawer.focus();
    try {
      history.replaceState(null, "", "#case=" + encodeURIComponent(row.id) +
        (TRIALS > 1 ? "&trial=" + row.trial : ""));
    } catch (e) { /* some file:// contexts refuse; the drawer works regardless */ }
  }
  function closeDrawer() {
    drawer.classList.remove("open");
    drawer.setAttribute("aria-hidden", "true");
    scrim.hidden = true;
    try { history.replaceState(null, "", location.pathname + location.search); } catch (e) { /* ignore */ }
  }
  drawer.querySelector(".close").addEventListener("click", closeDrawer);
  scrim.addEventListener("click", closeDrawer);
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && drawer.classList.contains("open")) { closeDrawer(); }
  });

  var real = DATA.cases.filter(function (r) { return !r.synthetic; });
  var synthetic = DATA.cases.filter(function (r) { return r.synthetic; });
  window.assayTables = { cases: new CaseTable("cases", real, true) };
  if (document.getElementById("synthetic-table")) {
    window.assayTables.synthetic = new CaseTable("synthetic", synthetic, false);
  }
  var wanted = /^#case=([^&]*)(?:&trial=(\d+))?$/.exec(location.hash);
  if (wanted) {
    var id = decodeURIComponent(wanted[1]);
    var trial = Number(wanted[2] || 1);
    openDrawer(DATA.cases.filter(function (r) { return r.id === id && r.trial === trial; })[0]);
  }
  document.documentElement.setAttribute("data-ready", "true");
})();
