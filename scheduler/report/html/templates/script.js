// ptxrun report: filter the counter tables by name or meaning, and open
// every folded section before printing. The page reads fine without it.
(function () {
  "use strict";
  document.querySelectorAll("input.counter-filter").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    if (!table) {
      return;
    }
    input.addEventListener("input", function () {
      var q = input.value.trim().toLowerCase();
      table.querySelectorAll("tbody").forEach(function (body) {
        var shown = 0;
        body.querySelectorAll("tr:not(.grp)").forEach(function (row) {
          var hit = q === "" || row.textContent.toLowerCase().indexOf(q) >= 0;
          row.hidden = !hit;
          if (hit) {
            shown++;
          }
        });
        var head = body.querySelector("tr.grp");
        if (head) {
          head.hidden = shown === 0;
        }
      });
    });
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) {
      d.setAttribute("open", "");
      d.setAttribute("data-print-opened", "");
    });
  });
  window.addEventListener("afterprint", function () {
    document.querySelectorAll("details[data-print-opened]").forEach(function (d) {
      d.removeAttribute("open");
      d.removeAttribute("data-print-opened");
    });
  });
})();
