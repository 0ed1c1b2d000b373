"use strict";
(function () {
  var box = document.getElementById("only-disagree");
  var count = document.getElementById("grid-shown");
  var rows = document.querySelectorAll("#grid tbody tr[data-disagree]");
  function apply() {
    var shown = 0;
    for (var i = 0; i < rows.length; i++) {
      var hide = box.checked && rows[i].getAttribute("data-disagree") !== "1";
      rows[i].hidden = hide;
      if (!hide) { shown++; }
    }
    count.textContent = String(shown);
  }
  box.addEventListener("change", apply);
  apply();
})();
