  // ---- the case table: a page of rows, the sort, the status chips, the slice filter ----
  // Each page's script tells it how to read its rows, on CaseTable.prototype: row(item) the
  // columns drawn, open(item) the case drawer, tally() the slices and counts per status
  // present, and render() the rows that match, through draw(matching, note).
  function CaseTable(prefix, rows, withControls) {
    var self = this;
    this.rows = rows;
    this.query = "";
    this.slice = "";
    this.only = new Set();  // the statuses shown; empty shows every status
    this.sortKey = null;
    this.sortDir = 1;
    this.page = 0;
    this.table = document.getElementById(prefix + "-table");
    this.tbody = this.table.querySelector("tbody");
    this.pager = document.getElementById(prefix + "-pager");
    this.shown = [];
    this.table.querySelectorAll("th[data-sort]").forEach(function (th) {
      th.setAttribute("tabindex", "0");
      th.addEventListener("click", function () { self.sortBy(th.getAttribute("data-sort"), th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter") { self.sortBy(th.getAttribute("data-sort"), th); }
      });
    });
    function openFrom(e, wanted) {
      var tr = e.target.closest("tr[data-index]");
      if (tr && wanted) { self.open(self.shown[Number(tr.getAttribute("data-index"))]); }
    }
    this.tbody.addEventListener("click", function (e) { openFrom(e, true); });
    this.tbody.addEventListener("keydown", function (e) { openFrom(e, e.key === "Enter"); });
    this.pager.querySelector("[data-page=prev]").addEventListener("click", function () {
      self.page -= 1; self.render();
    });
    this.pager.querySelector("[data-page=next]").addEventListener("click", function () {
      self.page += 1; self.render();
    });
    if (withControls) { this.controls(prefix); }
    this.render();
  }

  CaseTable.prototype.controls = function (prefix) {
    var self = this;
    var search = document.getElementById(prefix + "-search");
    var timer = null;
    search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        self.query = search.value.trim().toLowerCase(); self.page = 0; self.render();
      }, 120);
    });
    var tally = this.tally();
    var select = document.getElementById(prefix + "-slice");
    tally.slices.sort(collator.compare).forEach(function (name) {
      var option = el("option", null, name);
      option.value = name;
      select.appendChild(option);
    });
    select.addEventListener("change", function () {
      self.slice = select.value; self.page = 0; self.render();
    });
    var chips = document.getElementById(prefix + "-status");
    STATUSES.forEach(function (status) {
      var chip = el("button", "chip");
      chip.type = "button";
      chip.setAttribute("aria-pressed", "false");
      chip.setAttribute("data-status", status);
      chip.title = "Show only " + status + " cases (click again to show all)";
      chip.appendChild(el("span", "swatch st-" + status));
      chip.appendChild(document.createTextNode(status + " " + (tally.counts.get(status) || 0)));
      chip.addEventListener("click", function () {
        var on = chip.getAttribute("aria-pressed") !== "true";
        chip.setAttribute("aria-pressed", on ? "true" : "false");
        if (on) { self.only.add(status); } else { self.only.delete(status); }
        self.page = 0; self.render();
      });
      chips.appendChild(chip);
    });
  };

  CaseTable.prototype.sortBy = function (key, th) {
    this.sortDir = this.sortKey === key ? -this.sortDir : 1;
    this.sortKey = key;
    this.table.querySelectorAll("th[data-sort]").forEach(function (other) {
      other.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", this.sortDir > 0 ? "ascending" : "descending");
    this.page = 0;
    this.render();
  };

  // Draws the current page of the rows `matching` (any array-like of row items), and `note`,
  // when given, after the count of them.
  CaseTable.prototype.draw = function (matching, note) {
    var self = this;
    var pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
    this.page = Math.min(Math.max(this.page, 0), pages - 1);
    var start = this.page * PAGE_SIZE;
    this.shown = Array.from(matching.slice(start, start + PAGE_SIZE));
    var fragment = document.createDocumentFragment();
    this.shown.forEach(function (item, i) {
      var r = self.row(item);
      var tr = el("tr");
      tr.setAttribute("data-index", String(i));
      tr.setAttribute("data-status", r.status);
      tr.setAttribute("tabindex", "0");
      tr.appendChild(el("td", "id", label(r)));
      tr.appendChild(el("td", null, r.slice));
      tr.appendChild(el("td", null, expected(r)));
      tr.appendChild(el("td", null, got(r)));
      var status = el("td");
      status.appendChild(badge(r.status));
      tr.appendChild(status);
      tr.appendChild(el("td", "reason", r.reason));
      fragment.appendChild(tr);
    });
    if (!this.shown.length) {
      var empty = el("tr");
      var td = el("td", "muted", "No case matches these filters.");
      td.colSpan = 6;
      empty.appendChild(td);
      fragment.appendChild(empty);
    }
    this.tbody.replaceChildren(fragment);
    var unit = TRIALS > 1 ? " case-trials" : " cases";
    this.pager.querySelector("[data-field=count]").textContent = (matching.length
      ? "Showing " + (start + 1).toLocaleString("en") + "–" +
        (start + this.shown.length).toLocaleString("en") + " of " +
        matching.length.toLocaleString("en") + " matching (" +
        this.rows.length.toLocaleString("en") + unit + ")"
      : "0 matching (" + this.rows.length.toLocaleString("en") + unit + ")") + (note || "");
    this.pager.querySelector("[data-field=page]").textContent =
      "page " + (this.page + 1) + " of " + pages;
    this.pager.querySelector("[data-page=prev]").disabled = this.page === 0;
    this.pager.querySelector("[data-page=next]").disabled = this.page >= pages - 1;
  };
