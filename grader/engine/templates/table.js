(function () {
  "use strict";
  // The students' table, one page of rows at a time: every row is in the JSON of
  // #roster-data, and only the rows of the page shown are in the document, so that
  // a class of ten thousand opens, searches and sorts at once.
  var table = document.getElementById("roster");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var source = document.getElementById("roster-data");
  if (!table || !search || !shown || !source) { return; }
  var data = JSON.parse(source.textContent);
  var body = table.tBodies[0];
  var template = shown.getAttribute("data-template");
  var pager = document.getElementById("pager");
  var pageText = document.getElementById("page");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var size = data.page;
  var steps = data.points.length;
  // A row: [id, href, total, [points per step], status in words, seconds, flags, graded].
  // The columns: id, total, status, flags, one per step, seconds.
  var rows = data.rows.map(function (r, i) {
    return { r: r, i: i, text: [r[0], num(r[2]), r[4], r[6]].concat(r[3].map(num), [r[5].toFixed(2)])
      .join(" ").toLowerCase() };
  });
  var hits = rows;
  var page = 0;

  function num(x) { return x.toFixed(2).replace(/0+$/, "").replace(/\.$/, ""); }

  function state(got, most) {
    if (most && got >= most - 1e-9) { return "full"; }
    return got <= 0 ? "none" : "some";
  }

  function cell(tr, text, cls, value) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    if (value !== undefined) { td.setAttribute("data-value", value); }
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function build(r) {
    var tr = document.createElement("tr");
    var th = document.createElement("th");
    var a = document.createElement("a");
    th.scope = "row";
    th.className = "id";
    a.href = r[1];
    a.textContent = r[0];
    th.appendChild(a);
    tr.appendChild(th);
    cell(tr, num(r[2]), "num", r[2]);
    cell(tr, r[4], r[7] ? "status-graded" : "status-other");
    cell(tr, r[6], "flag");
    for (var s = 0; s < steps; s += 1) {
      cell(tr, num(r[3][s]), "num " + state(r[3][s], data.points[s]), r[3][s]);
    }
    cell(tr, r[5].toFixed(2), "num", r[5]);
    return tr;
  }

  function draw() {
    var pages = Math.max(1, Math.ceil(hits.length / size));
    page = Math.min(page, pages - 1);
    var part = hits.slice(page * size, (page + 1) * size);
    var fresh = document.createElement("tbody");
    part.forEach(function (row) { fresh.appendChild(build(row.r)); });
    table.replaceChild(fresh, body);
    body = fresh;
    shown.textContent = template.replace("{shown}", hits.length).replace("{total}", rows.length);
    if (pager) {
      pager.hidden = pages < 2;
      pageText.textContent = pageText.getAttribute("data-template")
        .replace("{page}", page + 1).replace("{pages}", pages);
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
  }

  function key(row, column) {
    var r = row.r;
    if (column === 0) { return r[0].toLowerCase(); }
    if (column === 1) { return r[2]; }
    if (column === 2) { return r[4].toLowerCase(); }
    if (column === 3) { return r[6].toLowerCase(); }
    if (column < 4 + steps) { return r[3][column - 4]; }
    return r[5];
  }

  // Each heading holds a button: a click, Enter or Space sorts by its column, and the
  // heading's aria-sort says which way.
  var headings = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(headings, function (th, column) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var up = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(headings, function (other) {
        other.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      var keyed = rows.map(function (row) { return [key(row, column), row.i, row]; });
      keyed.sort(function (a, b) {
        var order = a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1];
        return up ? order : -order;
      });
      rows = keyed.map(function (k) { return k[2]; });
      filter();
    });
  });

  function filter() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    hits = words.length ? rows.filter(function (row) {
      return words.every(function (w) { return row.text.indexOf(w) !== -1; });
    }) : rows;
    draw();
  }
  search.addEventListener("input", function () { page = 0; filter(); });
  if (prev && next) {
    prev.addEventListener("click", function () { page -= 1; draw(); });
    next.addEventListener("click", function () { page += 1; draw(); });
  }
  draw();
})();
