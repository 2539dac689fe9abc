// Forms of the contributor pages: focus the error summary, and make a form marked
// data-once (a confirm step) submit only once even if its button is clicked twice.
(function () {
  "use strict";
  var summary = document.getElementById("error-summary");
  if (summary) summary.focus();

  document.querySelectorAll("form[data-once]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.sent) {
        event.preventDefault();
        return;
      }
      form.dataset.sent = "1";
      form.querySelectorAll("button[type=submit]").forEach(function (button) {
        button.setAttribute("aria-disabled", "true");
      });
    });
  });
})();
