(function () {
  "use strict";
  var table = document.getElementById("roster");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  if (!table || !search || !shown) { return; }
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var template = shown.getAttribute("data-template");

  function key(row, column, kind) {
    var cell = row.cells[column];
    if (kind === "number") { return parseFloat(cell.getAttribute("data-value")); }
    return cell.textContent.toLowerCase();
  }

  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
    var kind = th.getAttribute("data-sort");
    if (!kind) { return; }
    th.tabIndex = 0;
    function sort() {
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = key(a, column, kind), y = key(b, column, kind);
        var order = x < y ? -1 : x > y ? 1 : 0;
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
  });

  function filter() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var count = 0;
    rows.forEach(function (row) {
      var seen = row.textContent.toLowerCase();
      var hit = words.every(function (w) { return seen.indexOf(w) !== -1; });
      row.hidden = !hit;
      if (hit) { count += 1; }
    });
    shown.textContent = template.replace("{shown}", count).replace("{total}", rows.length);
  }
  search.addEventListener("input", filter);
})();
