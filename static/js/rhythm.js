/* Rhythm of play: server-side drafts of the post being written, time-zone detection. */
(function () {
  "use strict";

  function csrf(form) {
    var input = form && form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function post(url, data, token) {
    var body = new URLSearchParams(data);
    return fetch(url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": token, "Content-Type": "application/x-www-form-urlencoded" },
    });
  }

  function setupDraft(form) {
    if (form.dataset.draftReady) return;
    form.dataset.draftReady = "1";
    var url = form.dataset.draftUrl;
    var textarea = form.querySelector("textarea[name=body]");
    if (!url || !textarea) return;
    var status = document.createElement("p");
    status.className = "help draft-status";
    status.setAttribute("aria-live", "polite");
    textarea.insertAdjacentElement("afterend", status);
    var timer = null;
    var last = textarea.value;
    if (!textarea.value.trim()) {
      fetch(url, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) {
          if (data && data.body && !textarea.value.trim()) {
            textarea.value = data.body;
            last = data.body;
            status.textContent = form.dataset.draftRestored || "";
          }
        })
        .catch(function () {});
    }
    textarea.addEventListener("input", function () {
      if (timer) clearTimeout(timer);
      timer = setTimeout(function () {
        if (textarea.value === last) return;
        last = textarea.value;
        post(url, { body: textarea.value }, csrf(form))
          .then(function (r) { if (r.ok) status.textContent = form.dataset.draftSaved || ""; })
          .catch(function () {});
      }, 1200);
    });
  }

  function scan(root) {
    (root || document).querySelectorAll("form[data-draft-url]").forEach(setupDraft);
  }

  function detectTimezone() {
    var url = document.body && document.body.dataset.tzUrl;
    if (!url || !window.Intl) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!zone) return;
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    post(url, { timezone: zone }, token ? token.value : "").catch(function () {});
  }

  document.addEventListener("DOMContentLoaded", function () {
    scan(document);
    detectTimezone();
  });
  document.addEventListener("htmx:afterSwap", function (event) { scan(event.target); });
})();
