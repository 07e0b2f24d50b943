// A form that writes is sent once: its submit buttons are disabled while it is
// being sent (a double click or a second Enter sends nothing more). The
// server is the real guard: forms that create something carry a one-time
// token (config/idempotency.py), so even a replay creates one thing.
// No inline script (a strict Content-Security-Policy is coming).
(function () {
  "use strict";
  var BUSY = "submitting";

  function buttons(form) {
    var list = Array.prototype.slice.call(form.querySelectorAll("button[type=submit], button:not([type]), input[type=submit]"));
    if (form.id) {
      list = list.concat(Array.prototype.slice.call(document.querySelectorAll('[form="' + form.id + '"][type=submit]')));
    }
    return list;
  }

  function release(form) {
    if (!form || !form.dataset || form.dataset[BUSY] !== "1") return;
    delete form.dataset[BUSY];
    form.removeAttribute("aria-busy");
    buttons(form).forEach(function (button) {
      if (button.dataset.onceDisabled === "1") {
        button.disabled = false;
        delete button.dataset.onceDisabled;
      }
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || (form.method || "").toLowerCase() !== "post") return;
    if (form.dataset[BUSY] === "1") {
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    form.dataset[BUSY] = "1";
    form.setAttribute("aria-busy", "true");
    // After this tick: the browser (or htmx) has already read the clicked button's value.
    window.setTimeout(function () {
      // Stopped by another script (and not sent by htmx): nothing was sent.
      if (event.defaultPrevented && !form.classList.contains("htmx-request")) {
        release(form);
        return;
      }
      buttons(form).forEach(function (button) {
        if (!button.disabled) {
          button.disabled = true;
          button.dataset.onceDisabled = "1";
        }
      });
    }, 0);
  }, true);

  // htmx forms stay on the page: give them back once the answer came.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    release(elt && elt.closest ? elt.closest("form") : null);
  });
  // Back/forward cache: a page shown again is usable again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-submitting]").forEach(release);
  });
})();
