// The score grid without round trips. Without JS the same buttons post the form and the
// server re-renders the grid (frontend/contribute/grid.py); with it:
// - "Add a dataset row" appends a row;
// - the fold count redraws the columns as it is typed, in place: cells that stay are the
//   same elements (focus and values kept), values of removed columns come back when the
//   count grows again, so clicking into the grid after typing the count loses nothing;
// - pasting a spreadsheet column or block (tab and newline separated) into a cell fills
//   the cells from there, rightwards and downwards.
// Columns are (metric, fold) groups: column = metric * folds + fold, as on the server.
(function () {
  "use strict";
  var table = document.getElementById("score-grid");
  var form = document.getElementById("submit-form");
  if (!table || !form) return;
  var body = table.querySelector("[data-grid-body]");
  var rowsInput = form.querySelector("[data-grid-rows]");
  var foldsInput = form.querySelector("[data-grid-folds]");
  var foldField = form.querySelector("#id_folds");
  var label = table.dataset.valueLabel || "score";
  var metrics = (table.dataset.metrics || "").split("\n").filter(function (m) { return m; });
  var nMetrics = Math.max(metrics.length, 1);
  var addButton = form.querySelector("[data-testid=grid-add-row]");
  var resizeButton = form.querySelector("[data-testid=grid-resize]");
  var status = document.createElement("p");
  status.className = "meta";
  status.setAttribute("role", "status");
  status.setAttribute("data-testid", "grid-paste-status");
  table.parentElement.after(status);
  var MAX_FOLDS = 100;
  var MAX_FIELDS = 980;
  var stash = {};  // "row:metric:fold" -> value of a column that was removed

  function folds() { return parseInt(foldsInput.value, 10) || 1; }
  function rows() { return Array.prototype.slice.call(body.querySelectorAll("tr[data-row]")); }
  function cells(row) { return Array.prototype.slice.call(row.querySelectorAll("input[data-testid=grid-cell]")); }

  function rowName(row) {
    var nameInput = row.querySelector(".dataset-cell input[type=text]");
    var hidden = row.querySelector(".dataset-cell input[type=hidden]");
    return nameInput ? (nameInput.value || "new dataset row " + (+row.dataset.row + 1)) : hidden.value;
  }

  function cellLabel(row, metric, fold, n) {
    var what = metrics.length > 1 ? metrics[metric] : label;
    return what + " of " + rowName(row) + (n > 1 ? ", fold " + fold : "");
  }

  function setCell(input, row, metric, fold, n) {
    input.id = input.name = "grid-" + row.dataset.row + "-" + (metric * n + fold);
    input.dataset.metric = String(metric);
    input.dataset.fold = String(fold);
    input.setAttribute("aria-label", cellLabel(row, metric, fold, n));
  }

  function makeCell(row, metric, fold, n, value) {
    var td = document.createElement("td");
    var input = document.createElement("input");
    input.type = "text";
    input.inputMode = "decimal";
    input.size = 8;
    input.value = value || "";
    input.setAttribute("data-testid", "grid-cell");
    setCell(input, row, metric, fold, n);
    td.appendChild(input);
    return td;
  }

  function header(n) {
    var head = table.querySelector("thead tr");
    while (head.children.length > 1) head.removeChild(head.lastChild);
    for (var m = 0; m < nMetrics; m++) {
      for (var f = 0; f < n; f++) {
        var th = document.createElement("th");
        th.scope = "col";
        if (metrics.length > 1) th.textContent = n === 1 ? metrics[m] : metrics[m] + ", fold " + f;
        else th.textContent = n === 1 ? label : "fold " + f;
        head.appendChild(th);
      }
    }
  }

  // Redraw for n folds, keeping every cell that stays as the same element.
  function redraw(n) {
    var old = folds();
    if (n === old) return;
    header(n);
    rows().forEach(function (row) {
      var byPosition = {};
      cells(row).forEach(function (input) {
        var m = +input.dataset.metric, f = +input.dataset.fold;
        if (f < n) byPosition[m + ":" + f] = input.parentElement;
        else { stash[row.dataset.row + ":" + m + ":" + f] = input.value; row.removeChild(input.parentElement); }
      });
      var before = null;
      for (var m = nMetrics - 1; m >= 0; m--) {
        for (var f = n - 1; f >= 0; f--) {
          var td = byPosition[m + ":" + f];
          if (!td) td = makeCell(row, m, f, n, stash[row.dataset.row + ":" + m + ":" + f]);
          else setCell(td.firstElementChild, row, m, f, n);
          if (td.nextSibling !== before || td.parentElement !== row) row.insertBefore(td, before);
          before = td;
        }
      }
    });
    foldsInput.value = String(n);
  }

  function fits(nRows, nFolds) { return nRows * (nFolds * nMetrics + 2) + 20 <= MAX_FIELDS; }

  function foldsTyped() {
    var n = parseInt(foldField.value, 10);
    if (!(n >= 1 && n <= MAX_FOLDS) || !fits(rows().length, n)) { resizeButton.hidden = false; return; }
    resizeButton.hidden = true;
    redraw(n);
  }

  if (foldField && resizeButton) {
    resizeButton.hidden = true;
    foldField.addEventListener("input", foldsTyped);
    foldField.addEventListener("change", foldsTyped);
  }

  // Paste: "a\tb\nc\td" fills a 2 x 2 block from the cell pasted into.
  body.addEventListener("paste", function (event) {
    var target = event.target;
    if (!target.matches || !target.matches("input[data-testid=grid-cell]")) return;
    var text = (event.clipboardData || window.clipboardData).getData("text");
    var lines = text.replace(/\r\n?/g, "\n").replace(/\n+$/, "").split("\n");
    var block = lines.map(function (line) { return line.split("\t"); });
    if (block.length === 1 && block[0].length === 1) return;  // one value: the browser's own paste
    event.preventDefault();
    var allRows = rows();
    var startRow = allRows.indexOf(target.closest("tr"));
    var startCol = cells(allRows[startRow]).indexOf(target);
    var filled = 0, dropped = 0, last = target;
    block.forEach(function (values, i) {
      var row = allRows[startRow + i];
      values.forEach(function (value, j) {
        var input = row ? cells(row)[startCol + j] : null;
        if (!input) { dropped++; return; }
        input.value = value.trim();
        last = input;
        filled++;
      });
    });
    last.focus();
    status.textContent = "Pasted " + filled + " value" + (filled === 1 ? "" : "s") +
      (dropped ? "; " + dropped + " did not fit in the grid and were left out." : ".");
  });

  if (addButton) {
    addButton.addEventListener("click", function (event) {
      var index = rows().length;
      if (!fits(index + 1, folds())) return;  // let the server explain
      event.preventDefault();
      var tr = document.createElement("tr");
      tr.dataset.row = String(index);
      tr.setAttribute("data-testid", "grid-row");
      var td = document.createElement("td");
      td.className = "dataset-cell";
      var id = "grid-" + index + "-dataset";
      td.innerHTML = '<label class="visually-hidden" for="' + id + '">Name of new dataset, row ' + (index + 1) + "</label>";
      var name = document.createElement("input");
      name.type = "text"; name.id = name.name = id; name.placeholder = "new dataset"; name.maxLength = 200;
      name.setAttribute("data-testid", "grid-dataset-input");
      var flag = document.createElement("input");
      flag.type = "hidden"; flag.name = "grid-" + index + "-new"; flag.value = "1";
      td.appendChild(name); td.appendChild(flag);
      tr.appendChild(td);
      var n = folds();
      for (var m = 0; m < nMetrics; m++) for (var f = 0; f < n; f++) tr.appendChild(makeCell(tr, m, f, n, ""));
      name.addEventListener("change", function () {
        cells(tr).forEach(function (input) { setCell(input, tr, +input.dataset.metric, +input.dataset.fold, folds()); });
      });
      body.appendChild(tr);
      rowsInput.value = String(index + 1);
      name.focus();
    });
  }

  // Server-rendered cells carry their (metric, fold) too.
  var n0 = folds();
  rows().forEach(function (row) {
    cells(row).forEach(function (input, column) {
      input.dataset.metric = String(Math.floor(column / n0));
      input.dataset.fold = String(column % n0);
    });
  });
})();
