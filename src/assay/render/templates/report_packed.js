(function () {
  "use strict";
  // A large report's rows come packed: a few columns the table needs, as distinct values
  // and codes, kept in memory; the full rows and the searched text in compressed parts,
  // each unpacked only while it is needed (a case drawer, a search), then let go.
  var DATA = JSON.parse(document.getElementById("assay-data").textContent);
  var PACKED = DATA.packed;
  delete DATA.packed;
  /* the shared helpers */
  var N = PACKED.rows;
  var PART = PACKED.part_rows;
  var FIELDS = PACKED.fields;
  var COLS = {};  // name -> {values: distinct values, codes: typed array, or null when row i has value i}
  var count = document.querySelector("#cases-pager [data-field=count]");

  function block(name) { return document.getElementById("assay-" + name).textContent; }
  function bytes(text) {
    var raw = atob(text);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function inflate(name) {
    var stream = new Blob([bytes(block(name))]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream);
  }
  function failed(err) {
    count.textContent = "This browser could not unpack the case rows (" + err + ").";
    document.documentElement.setAttribute("data-ready", "failed");
  }
  function code(name, i) { var c = COLS[name]; return c.codes ? c.codes[i] : i; }
  function value(name, i) { return COLS[name].values[code(name, i)]; }
  function tableRow(i) {
    var row = { id: value("id", i), trial: value("trial", i), synthetic: value("synthetic", i),
      slice: value("slice", i), status: value("status", i), reason: value("reason", i) };
    Object.assign(row, value("expected", i), value("got", i));
    return row;
  }

  // A part holds each row as its values in the order of PACKED.fields.
  function named(values) {
    var row = {};
    for (var j = 0; j < FIELDS.length; j++) { row[FIELDS[j]] = values[j]; }
    return row;
  }
  // The full rows of the last parts opened (a case drawer reads one row of one part).
  var opened = [];
  function fullRow(i) {
    var k = Math.floor(i / PART);
    for (var j = 0; j < opened.length; j++) {
      if (opened[j].part === k) { return Promise.resolve(opened[j].rows[i - k * PART]); }
    }
    return inflate("rows-" + k).text().then(JSON.parse).then(function (arrays) {
      var rows = arrays.map(named);
      opened.unshift({ part: k, rows: rows });
      opened.length = Math.min(opened.length, 2);
      return rows[i - k * PART];
    });
  }

  // ---- search: the index columns' distinct values, then the text parts one by one ----
  var SEARCHED = { id: [null], slice: [null], reason: [null], expected: ["expected_fact"],
    got: ["fact", "outcome"] };
  var JSON_ESCAPED = /["\\\u0000-\u001f]/;
  // The search of the last query: its hits so far, how many rows it has read, and a promise
  // of its end; every table draws from it, so paging or sorting never starts it again.
  var found = { query: null };
  var onPart = null;  // called after each part the search reads
  function contains(v, query) {
    return v !== null && v !== undefined && String(v).toLowerCase().indexOf(query) >= 0;
  }
  // The searched text of the parts read so far, lowercased, while it fits in TEXT_BUDGET
  // characters: a later query reads those parts without unpacking them again.
  var TEXT_BUDGET = 48e6;
  var texts = {};
  var kept = 0;
  function searchText(k) {
    if (texts[k] !== undefined) { return Promise.resolve(texts[k]); }
    return inflate("search-" + k).text().then(function (text) {
      text = text.toLowerCase();
      if (kept + text.length <= TEXT_BUDGET) { texts[k] = text; kept += text.length; }
      return text;
    });
  }
  function search(query) {
    if (found.query === query) { return found; }
    var state = { query: query, hits: new Uint8Array(N), read: 0, version: 0, done: false };
    found = state;
    var hits = state.hits;
    Object.keys(SEARCHED).forEach(function (name) {
      var fields = SEARCHED[name];
      var values = COLS[name].values;
      var hit = new Uint8Array(values.length);
      var any = false;
      for (var c = 0; c < values.length; c++) {
        var v = values[c];
        for (var f = 0; f < fields.length; f++) {
          if (contains(fields[f] === null ? v : v[fields[f]], query)) { hit[c] = 1; any = true; }
        }
      }
      if (!any) { return; }
      for (var i = 0; i < N; i++) { if (hit[code(name, i)]) { hits[i] = 1; } }
    });
    var plain = !JSON_ESCAPED.test(query);  // then a part without it in its JSON has no match
    var size = PACKED.search_rows;
    function scan(k) {
      return searchText(k).then(function (text) {
        if (found !== state) { return; }
        if (!plain || text.indexOf(query) >= 0) {
          var texts = JSON.parse(text);
          for (var j = 0; j < texts.length; j++) {
            if (texts[j].indexOf(query) >= 0) { hits[k * size + j] = 1; }
          }
        }
        state.read += Math.min(size, N - k * size);
        state.version += 1;
        if (onPart) { onPart(state); }
      });
    }
    // A few parts at a time: unpacking one mostly waits, and all at once would hold them all.
    var next = 0;
    function lane() {
      if (next >= PACKED.search_parts || found !== state) { return Promise.resolve(); }
      return scan(next++).then(lane);
    }
    state.end = Promise.all([lane(), lane(), lane()]).then(function () {
      if (found === state) { state.done = true; state.version += 1; }
    });
    return state;
  }

  // ---- sorting: each column's distinct values ranked once, rows placed by rank ----
  var RANKS = {};
  var SORT_COLUMN = { id: "id", slice: "slice", expected: "expected", got: "got",
    status: "status", reason: "reason" };
  function ranks(name) {
    if (RANKS[name]) { return RANKS[name]; }
    var values = COLS[name].values;
    var rank = new Uint32Array(values.length);
    var keys = values.map(function (v) {
      if (name === "status") { return STATUSES.indexOf(v); }
      if (name === "expected") { return expected(v); }
      if (name === "got") { return got(v); }
      return v;
    });
    var order = keys.map(function (_, c) { return c; });
    var sorted = true;
    for (var c = 1; c < keys.length && sorted; c++) { sorted = compare(keys[c - 1], keys[c]) <= 0; }
    if (!sorted) { order.sort(function (a, b) { return compare(keys[a], keys[b]) || a - b; }); }
    var r = 0;
    for (var j = 0; j < order.length; j++) {
      if (j > 0 && compare(keys[order[j - 1]], keys[order[j]]) !== 0) { r += 1; }
      rank[order[j]] = r;
    }
    RANKS[name] = { rank: rank, size: r + 1 };
    return RANKS[name];
  }
  function sortRows(rows, name, dir) {
    var ranked = ranks(name);
    var starts = new Uint32Array(ranked.size);
    var i;
    for (i = 0; i < rows.length; i++) { starts[ranked.rank[code(name, rows[i])]] += 1; }
    var at = 0;
    for (var r = 0; r < ranked.size; r++) {
      var slot = dir > 0 ? r : ranked.size - 1 - r;
      var n = starts[slot];
      starts[slot] = at;
      at += n;
    }
    var out = new Uint32Array(rows.length);
    for (i = 0; i < rows.length; i++) {
      var s = ranked.rank[code(name, rows[i])];
      out[starts[s]] = rows[i];
      starts[s] += 1;
    }
    return out;
  }

  /* the case table */
  // This page's rows are row numbers: the table reads their columns from the index, and a
  // case drawer waits for its full row to be unpacked.
  CaseTable.prototype.row = tableRow;
  CaseTable.prototype.open = function (i) { fullRow(i).then(openDrawer); };
  CaseTable.prototype.tally = function () {
    var present = new Uint8Array(COLS.slice.values.length);
    var perStatus = new Uint32Array(COLS.status.values.length);
    for (var i = 0; i < this.rows.length; i++) {
      present[code("slice", this.rows[i])] = 1;
      perStatus[code("status", this.rows[i])] += 1;
    }
    var counts = new Map();
    COLS.status.values.forEach(function (status, c) { counts.set(status, perStatus[c]); });
    return { slices: COLS.slice.values.filter(function (_, c) { return present[c]; }), counts: counts };
  };

  CaseTable.prototype.matching = function (hits) {
    var statuses = COLS.status.values;
    var allowed = null;
    if (this.only.size) {
      allowed = new Uint8Array(statuses.length);
      for (var c = 0; c < statuses.length; c++) { allowed[c] = this.only.has(statuses[c]) ? 1 : 0; }
    }
    var slice = this.slice ? COLS.slice.values.indexOf(this.slice) : -2;
    var out = new Uint32Array(this.rows.length);
    var m = 0;
    for (var j = 0; j < this.rows.length; j++) {
      var i = this.rows[j];
      if (allowed && !allowed[code("status", i)]) { continue; }
      if (slice !== -2 && code("slice", i) !== slice) { continue; }
      if (hits && !hits[i]) { continue; }
      out[m++] = i;
    }
    out = out.subarray(0, m);
    return this.sortKey ? sortRows(out, SORT_COLUMN[this.sortKey], this.sortDir) : out;
  };

  // Draws the table now; with a query, again as the search reads its parts (at most four
  // times a second) and when it ends, which the promise it returns waits for.
  CaseTable.prototype.render = function () {
    var self = this;
    if (!this.query) {
      this.drawMatching(null);
      return Promise.resolve();
    }
    var query = this.query;
    var state = search(query);
    var drawn = performance.now();
    onPart = function (s) {
      if (self.query !== query || s !== found || performance.now() - drawn < 250) { return; }
      drawn = performance.now();
      self.drawMatching(s);
    };
    this.drawMatching(state);
    return state.end.then(function () {
      if (self.query === query && found === state) { self.drawMatching(state); }
    });
  };

  // Draws the rows that match the filters and the search `state` so far (null: no query).
  CaseTable.prototype.drawMatching = function (state) {
    var key = [Array.from(this.only).sort().join(","), this.slice, this.sortKey, this.sortDir,
      state ? state.query + "\u0000" + state.version : ""].join("\u0000");
    if (this.matchedFor !== key) {
      this.matched = this.matching(state ? state.hits : null);
      this.matchedFor = key;
    }
    this.draw(this.matched, state && !state.done ? " · searching, " +
      state.read.toLocaleString("en") + " of " + N.toLocaleString("en") + " rows read…" : "");
  };

  /* the case drawer */
  function start() {
    var real = [];
    var synthetic = [];
    for (var i = 0; i < N; i++) { (value("synthetic", i) ? synthetic : real).push(i); }
    window.assayTables = { cases: new CaseTable("cases", Uint32Array.from(real), true) };
    if (document.getElementById("synthetic-table")) {
      window.assayTables.synthetic = new CaseTable("synthetic", Uint32Array.from(synthetic), false);
    }
    var wanted = /^#case=([^&]*)(?:&trial=(\d+))?$/.exec(location.hash);
    var opening = Promise.resolve();
    if (wanted) {
      var id = COLS.id.values.indexOf(decodeURIComponent(wanted[1]));
      var trial = Number(wanted[2] || 1);
      for (var j = 0; id >= 0 && j < N; j++) {
        if (code("id", j) === id && value("trial", j) === trial) {
          opening = fullRow(j).then(openDrawer);
          break;
        }
      }
    }
    opening.then(function () {
      document.documentElement.setAttribute("data-ready", "true");
    }, failed);
  }

  if (typeof DecompressionStream === "undefined") {
    failed("no DecompressionStream");
    return;
  }
  count.textContent = "Unpacking the case index of " + N.toLocaleString("en") + " rows…";
  // A value of a column of several fields comes as an array of them, named here.
  function objects(values, fields) {
    return values.map(function (v) {
      var o = {};
      for (var j = 0; j < fields.length; j++) { o[fields[j]] = v[j]; }
      return o;
    });
  }
  inflate("index").text().then(JSON.parse).then(function (index) {
    return Promise.all(Object.keys(index.values).map(function (name) {
      var fields = index.fields[name];
      var values = fields ? objects(index.values[name], fields) : index.values[name];
      COLS[name] = { values: values, codes: null };
      var width = index.widths[name];
      if (!width) { return null; }
      return inflate("codes-" + name).arrayBuffer().then(function (buffer) {
        COLS[name].codes = width === 1 ? new Uint8Array(buffer)
          : width === 2 ? new Uint16Array(buffer) : new Uint32Array(buffer);
      });
    }));
  }).then(start, failed);
})();
