// Small progressive enhancements. Everything works without JavaScript;
// htmx and its SSE extension make pages live.
(function () {
  "use strict";
  // Show the state of live connections ([data-live-indicator] inside an sse-connect element).
  function setState(elt, state) {
    var root = elt.closest ? elt.closest("[sse-connect]") : null;
    if (!root) return;
    root.querySelectorAll("[data-live-indicator]").forEach(function (ind) {
      ind.dataset.state = state;
      ind.textContent = ind.dataset[state === "open" ? "openText" : "closedText"] || "";
    });
  }
  document.addEventListener("htmx:sseOpen", function (e) { setState(e.target, "open"); });
  document.addEventListener("htmx:sseError", function (e) { setState(e.target, "closed"); });
})();

// Behaviours declared in the markup (no inline handlers: the Content-Security-Policy forbids them).
(function () {
  "use strict";
  // <select data-autosubmit>: submit its form on change (a <noscript> button does it without JS).
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (t.matches && t.matches("[data-autosubmit]") && t.form) t.form.submit();
  });
  // <form data-confirm="question">: ask before submitting.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    var question = form.getAttribute && form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) e.preventDefault();
  });
  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!t.closest) return;
    if (t.closest("[data-print]")) window.print();
    var field = t.closest("[data-select-on-click]");
    if (field && field.select) field.select();
  });
  // [data-scroll-after="id"] on an htmx trigger: bring #id into view once the request is done.
  document.addEventListener("htmx:afterRequest", function (e) {
    var elt = e.detail && e.detail.elt;
    var id = elt && elt.getAttribute && elt.getAttribute("data-scroll-after");
    var target = id && document.getElementById(id);
    if (target) target.scrollIntoView();
  });
})();
