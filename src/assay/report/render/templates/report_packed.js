(function () {
  "use strict";
  // A large report's case rows come gzip-compressed and base64-encoded, a part of rows at
  // a time; the browser's DecompressionStream unpacks them, then the page runs as usual.
  var holder = document.getElementById("assay-data");
  var LOADED = JSON.parse(holder.textContent);
  var packed = LOADED.packed;
  delete LOADED.packed;
  var count = document.querySelector("#cases-pager [data-field=count]");

  function bytes(text) {
    var raw = atob(text);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  }
  function unpack(part) {
    var stream = new Blob([bytes(part)]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function failed(err) {
    count.textContent = "This browser could not unpack the case rows (" + err + ").";
    document.documentElement.setAttribute("data-ready", "failed");
  }

  var rows = [];
  var next = 0;
  function step() {
    if (next >= packed.parts.length) {
      if (rows.length !== packed.rows) {
        failed(rows.length + " rows unpacked, " + packed.rows + " expected");
        return;
      }
      LOADED.cases = rows;
      run(LOADED);
      return;
    }
    count.textContent = "Unpacking case rows… " +
      rows.length.toLocaleString("en") + " of " + packed.rows.toLocaleString("en");
    unpack(packed.parts[next]).then(function (part) {
      next += 1;
      for (var i = 0; i < part.length; i++) { rows.push(part[i]); }
      step();
    }, failed);
  }
  if (typeof DecompressionStream === "undefined") {
    failed("no DecompressionStream");
  } else {
    step();
  }

  function run(LOADED) {
/* the report script */
  }
})();
