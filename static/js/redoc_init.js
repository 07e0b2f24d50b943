// /api/redoc/: start Redoc from a file (no inline script), handing its style engine the
// response's Content-Security-Policy nonce so the <style> elements it writes are allowed.
(function () {
  "use strict";
  var el = document.getElementById("redoc-container");
  if (!el || !window.Redoc) return;
  window.Redoc.init(el.dataset.specUrl, { nonce: el.dataset.styleNonce }, el);
})();
