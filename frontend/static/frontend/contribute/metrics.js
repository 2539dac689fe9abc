// "Add a metric" without a round trip: clone the formset's empty form (Django's
// __prefix__ placeholder) and bump TOTAL_FORMS. Without JS the button posts the page.
(function () {
  "use strict";
  var list = document.querySelector("[data-metric-list]");
  var template = document.querySelector("[data-metric-template]");
  var button = document.querySelector("[data-testid=metric-add]");
  if (!list || !template || !button) return;
  var prefix = list.dataset.prefix;
  var total = document.getElementById("id_" + prefix + "-TOTAL_FORMS");
  var max = document.getElementById("id_" + prefix + "-MAX_NUM_FORMS");
  button.addEventListener("click", function (event) {
    var index = parseInt(total.value, 10);
    if (max && index >= parseInt(max.value, 10)) return;
    event.preventDefault();
    var html = template.innerHTML.replace(/__prefix__/g, String(index));
    list.insertAdjacentHTML("beforeend", html);
    total.value = String(index + 1);
    var rows = list.querySelectorAll("li");
    var first = rows[rows.length - 1].querySelector("input");
    if (first) first.focus();
  });
})();
