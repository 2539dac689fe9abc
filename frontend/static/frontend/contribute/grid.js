// The score grid without round trips: "Add a dataset row" appends a row and a changed
// fold count redraws the columns at once, keeping what was typed. Without JS the same
// buttons post the form and the server re-renders the grid.
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
  var addButton = form.querySelector("[data-testid=grid-add-row]");
  var resizeButton = form.querySelector("[data-testid=grid-resize]");
  var MAX_FOLDS = 100;
  var MAX_FIELDS = 980;

  function folds() { return parseInt(foldsInput.value, 10) || 1; }
  function rows() { return body.querySelectorAll("tr[data-row]"); }

  function cellLabel(row, fold, n) {
    var nameInput = row.querySelector(".dataset-cell input[type=text]");
    var hidden = row.querySelector(".dataset-cell input[type=hidden]");
    var name = nameInput ? (nameInput.value || "new dataset row " + (+row.dataset.row + 1)) : hidden.value;
    return label + " of " + name + (n > 1 ? ", fold " + fold : "");
  }

  function makeCell(row, fold, n, value) {
    var td = document.createElement("td");
    var input = document.createElement("input");
    input.type = "text";
    input.inputMode = "decimal";
    input.size = 8;
    input.id = input.name = "grid-" + row.dataset.row + "-" + fold;
    input.value = value || "";
    input.setAttribute("aria-label", cellLabel(row, fold, n));
    input.setAttribute("data-testid", "grid-cell");
    td.appendChild(input);
    return td;
  }

  function redraw(n) {
    var head = table.querySelector("thead tr");
    while (head.children.length > 1) head.removeChild(head.lastChild);
    for (var f = 0; f < n; f++) {
      var th = document.createElement("th");
      th.scope = "col";
      th.textContent = n === 1 ? label : "fold " + f;
      head.appendChild(th);
    }
    rows().forEach(function (row) {
      var values = Array.prototype.map.call(row.querySelectorAll("td input[data-testid=grid-cell]"), function (i) { return i.value; });
      row.querySelectorAll("td input[data-testid=grid-cell]").forEach(function (i) { row.removeChild(i.parentElement); });
      for (var f = 0; f < n; f++) row.appendChild(makeCell(row, f, n, values[f]));
    });
    foldsInput.value = String(n);
  }

  function fits(nRows, nFolds) { return nRows * (nFolds + 2) + 20 <= MAX_FIELDS; }

  if (foldField && resizeButton) {
    resizeButton.hidden = true;
    foldField.addEventListener("change", function () {
      var n = parseInt(foldField.value, 10);
      if (!(n >= 1 && n <= MAX_FOLDS) || !fits(rows().length, n)) { resizeButton.hidden = false; return; }
      redraw(n);
    });
  }

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
      for (var f = 0; f < n; f++) tr.appendChild(makeCell(tr, f, n, ""));
      name.addEventListener("change", function () {
        tr.querySelectorAll("input[data-testid=grid-cell]").forEach(function (input, f) { input.setAttribute("aria-label", cellLabel(tr, f, n)); });
      });
      body.appendChild(tr);
      rowsInput.value = String(index + 1);
      name.focus();
    });
  }
})();
