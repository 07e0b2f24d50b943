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
