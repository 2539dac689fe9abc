// A "Copy" button for the new API token (the token stays selectable text without JS).
(function () {
  "use strict";
  document.querySelectorAll("[data-copy-target]").forEach(function (button) {
    var input = document.getElementById(button.dataset.copyTarget);
    var status = button.parentElement.querySelector(".copy-status");
    if (!input) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      input.select();
      var done = function () { if (status) status.textContent = "Copied."; };
      var fail = function () { if (status) status.textContent = "Select the text and copy it (Ctrl+C)."; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, fail);
      } else {
        try { document.execCommand("copy") ? done() : fail(); } catch (e) { fail(); }
      }
    });
  });
})();
