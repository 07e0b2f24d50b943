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

  // A region that scrolls sideways or down (a wide table, the combat log) can be
  // reached and scrolled with the keyboard, and says what it is.
  function scrollRegions(root) {
    (root || document).querySelectorAll(".table-wrap, ol, ul, pre, .log, [data-scrollable]").forEach(function (el) {
      if (el.hasAttribute("tabindex")) return;
      var style = window.getComputedStyle(el);
      var scrolls = /(auto|scroll)/.test(style.overflowX + style.overflowY);
      if (!scrolls || (el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight)) return;
      el.setAttribute("tabindex", "0");
      el.setAttribute("data-scroll-region", "");
      if (!el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby")) {
        var caption = el.querySelector("caption");
        var heading = caption || (el.closest("section, .card, article") || document).querySelector("h2, h3, legend");
        if (heading && heading.textContent.trim()) {
          if (!el.getAttribute("role") && el.tagName !== "OL" && el.tagName !== "UL") el.setAttribute("role", "region");
          el.setAttribute("aria-label", heading.textContent.trim());
        }
      }
    });
  }
  // A form that came back with errors: its summary takes the focus.
  function focusErrors(root) {
    var box = (root || document).querySelector("[data-focus-on-load]");
    if (box) { box.focus(); }
  }
  // Inputs marked data-keep-typed keep what is being typed when a live
  // refresh (a GET) replaces the panel around them (the auction bid).
  var kept = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var cfg = e.detail.requestConfig || {};
    kept = null;
    if ((cfg.verb || "get").toLowerCase() !== "get") return;
    var active = document.activeElement;
    kept = [];
    e.detail.target.querySelectorAll("input[data-keep-typed][id]").forEach(function (input) {
      kept.push({ id: input.id, value: input.value, focused: input === active,
        start: input === active ? input.selectionStart : null });
    });
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (kept) {
      kept.forEach(function (k) {
        var input = document.getElementById(k.id);
        if (!input || !k.value) return;
        input.value = k.value;
        if (k.focused) { input.focus(); try { input.setSelectionRange(k.start, k.start); } catch (err) { /* type=number */ } }
      });
      kept = null;
    }
    scrollRegions(e.detail.target);
  });
  // Inputs marked data-when="attack spell" are read by the rules for those actions only: shown
  // when the form's [data-when-key] select holds one of them (without script every input shows).
  function showWhen(root) {
    (root || document).querySelectorAll("form").forEach(function (form) {
      var key = form.querySelector("select[data-when-key]");
      if (!key || key.dataset.whenBound) return;
      key.dataset.whenBound = "1";
      function apply() {
        form.querySelectorAll("[data-when]").forEach(function (box) {
          box.hidden = box.dataset.when.split(" ").indexOf(key.value) < 0;
        });
      }
      key.addEventListener("change", apply);
      apply();
    });
  }
  document.addEventListener("htmx:load", function (e) { showWhen(e.target); });
  document.addEventListener("DOMContentLoaded", function () { scrollRegions(); focusErrors(); showWhen(); });
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
