// Fair dice, on the player's side (no inline script: loaded as a static file).
//  1. Every roll form gets a fresh random nonce (crypto.getRandomValues): the player's share of the dice.
//  2. Every campaign page's chain head ([data-chain-head]) is remembered in localStorage.
//  3. The verify page ([data-rolls-verifier]) recomputes the whole export in the browser with
//     WebCrypto (SHA-256, HMAC-SHA-256, Ed25519): chain, dice, seeds, witnessed heads, checkpoints.
// The scheme is the one of rules/fair.py and tools/verify_rolls.py.
(function () {
  "use strict";
  var SCHEME = "tablee-dice-v1";
  var GENESIS = "0000000000000000000000000000000000000000000000000000000000000000";
  var MAX_HEADS = 500;

  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function fromHex(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
    return out;
  }
  function fromB64(text) {
    var bin = atob(text), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  var enc = new TextEncoder();

  // ---- 1. nonces -------------------------------------------------------------------------
  function freshNonce() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return hex(bytes);
  }
  function armNonces(root) {
    (root || document).querySelectorAll("input[data-roll-nonce]").forEach(function (input) {
      input.value = freshNonce();
      var form = input.form;
      if (form && !form.dataset.nonceArmed) {
        form.dataset.nonceArmed = "1";
        form.addEventListener("submit", function () { input.value = freshNonce(); });
      }
    });
  }

  // ---- 2. witnessed heads ----------------------------------------------------------------
  var KEY_PIN = "tablee.rolls.key";
  var MAX_CHECKPOINTS = 20;
  function headsKey(campaign) { return "tablee.rolls.heads." + campaign; }
  function cpKey(campaign) { return "tablee.rolls.checkpoints." + campaign; }
  function loadList(key) {
    try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch (e) { return []; }
  }
  function saveList(key, list) {
    try { localStorage.setItem(key, JSON.stringify(list)); } catch (e) { /* storage full or off */ }
  }
  function loadHeads(campaign) { return loadList(headsKey(campaign)); }
  function witness() {
    document.querySelectorAll("[data-chain-head]").forEach(function (el) {
      var d = el.dataset, heads = loadHeads(d.campaign);
      var head = { s: parseInt(d.sequence, 10), h: d.hash, k: parseInt(d.seed, 10), c: d.commitment, t: new Date().toISOString() };
      var seen = heads.some(function (x) { return x.s === head.s && x.h === head.h && x.k === head.k && x.c === head.c; });
      if (!seen) {
        heads.push(head);
        if (heads.length > MAX_HEADS) heads = heads.slice(heads.length - MAX_HEADS);
        try { localStorage.setItem(headsKey(d.campaign), JSON.stringify(heads)); } catch (e) { /* storage full or off */ }
      }
    });
  }

  // ---- 3. the verifier -------------------------------------------------------------------
  // Python's json.dumps of a float: shortest digits, exponent when < 1e-4 or >= 1e16.
  function pyNumber(x) {
    if (!isFinite(x)) throw new Error("non-finite number");
    if (Number.isInteger(x) && Math.abs(x) < 9007199254740992) return String(x);
    var e = x.toExponential(), parts = e.split("e"), exp = parseInt(parts[1], 10);
    if (exp >= -4 && exp < 16) return String(x);
    return parts[0] + "e" + (exp < 0 ? "-" : "+") + ("0" + Math.abs(exp)).slice(-2);
  }
  // rules.fair.canonical_json
  function canonical(v) {
    if (v === null) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "number") return pyNumber(v);
    if (typeof v === "string") return JSON.stringify(v);
    if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
    return "{" + Object.keys(v).sort().map(function (k) { return JSON.stringify(k) + ":" + canonical(v[k]); }).join(",") + "}";
  }
  function equal(a, b) { return canonical(a) === canonical(b); }
  async function sha(text) { return hex(await crypto.subtle.digest("SHA-256", typeof text === "string" ? enc.encode(text) : text)); }

  async function redraw(seedHex, nonce, sequence, requestDigest, dice) {
    var key = await crypto.subtle.importKey("raw", fromHex(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    var words = [], counter = 0, out = [];
    async function word() {
      if (!words.length) {
        var msg = SCHEME + "|" + nonce + "|" + sequence + "|" + requestDigest + "|" + counter;
        counter += 1;
        var view = new DataView(await crypto.subtle.sign("HMAC", key, enc.encode(msg)));
        for (var i = 0; i < 32; i += 4) words.push(view.getUint32(i, false));
      }
      return words.shift();
    }
    for (var j = 0; j < dice.length; j++) {
      var a = dice[j][0], b = dice[j][1], n = b - a + 1, limit = 4294967296 - (4294967296 % n);
      for (;;) { var w = await word(); if (w < limit) { out.push(a + (w % n)); break; } }
    }
    return out;
  }

  function drawsOf(resolution) {
    return resolution && Array.isArray(resolution.draws) ? resolution.draws : null;
  }

  async function checkProof(seq, proof, request, resolution, seeds, drawsBySeq, say) {
    if ("derived_from" in proof) {
      var src = drawsBySeq[proof.derived_from], mine = drawsOf(resolution);
      if (src && mine && !equal(src, mine)) say("derived", seq, proof.derived_from);
      return;
    }
    var known = seeds[proof.seed];
    if (!known || known.commitment !== proof.commitment) { say("unpublished", seq); return; }
    if (request !== undefined && (await sha(canonical(request))) !== proof.request_digest) say("request", seq);
    var values = (proof.dice || []).map(function (d) { return d[2]; });
    var shown = drawsOf(resolution);
    if (shown && !equal(shown, values)) say("shown", seq);
    if (known.seed) {
      if ((await sha(fromHex(known.seed))) !== known.commitment) { say("commitment", seq); return; }
      var again = await redraw(known.seed, String(proof.nonce), seq, String(proof.request_digest), proof.dice || []);
      if (!equal(again, values)) say("dice", seq);
    }
  }

  async function verifySignature(doc, publicKeyB64) {
    if (!doc || !doc.checkpoint || !doc.signature) return false;
    var key = await crypto.subtle.importKey("raw", fromB64(publicKeyB64), { name: "Ed25519" }, false, ["verify"]);
    return crypto.subtle.verify({ name: "Ed25519" }, key, fromB64(doc.signature), enc.encode(canonical(doc.checkpoint)));
  }

  // Returns {problems: [[code, ...args]], stats}
  async function verify(data, options) {
    var problems = [], stats = { rolls: 0, recomputed: 0, pending: 0, server: 0, heads: 0, checkpoints: 0 };
    function say() { problems.push(Array.prototype.slice.call(arguments)); }
    var seeds = {};
    (data.seeds || []).forEach(function (s) { seeds[s.index] = s; });
    var prev = GENESIS, proven = false, drawsBySeq = {}, rows = data.rolls || [];
    // The earliest roll number at which this browser saw each seed's commitment.
    var seenAt = {};
    stats.foreseen = 0;
    (options.heads || []).forEach(function (h) {
      var key = h.k + ":" + h.c;
      if (!(key in seenAt) || h.s < seenAt[key]) seenAt[key] = h.s;
    });
    for (var i = 0; i < rows.length; i++) {
      var row = rows[i], seq = row.sequence, content = null, body;
      stats.rolls += 1;
      if (seq !== i + 1) say("sequence", seq, i + 1);
      if (row.prev_hash !== prev) say("prev", seq);
      if (typeof row.canonical === "string") {
        content = JSON.parse(row.canonical);
        if (row.content && !equal(row.content, content)) say("shown_content", seq);
        body = await sha(row.canonical + "|" + (row.salt || ""));
      } else {
        body = row.body_digest || row.content_digest || "";
      }
      var proof = row.fair, digest = body;
      if (proof) digest = await sha("v2:" + body + ":" + (await sha(canonical(proof))));
      else if (row.proof_digest) digest = await sha("v2:" + body + ":" + row.proof_digest);
      if ((await sha(row.prev_hash + ":" + digest)) !== row.hash) say("hash", seq);
      var resolution = content ? content.resolution : null;
      if (proof) {
        proven = true;
        if (proof.nonce_by === "server") stats.server += 1;
        if (!("derived_from" in proof) && seenAt[proof.seed + ":" + proof.commitment] < seq) stats.foreseen += 1;
        var seed = seeds[proof.seed];
        if ("derived_from" in proof || !(seed && seed.seed)) { if (!("derived_from" in proof)) stats.pending += 1; }
        else stats.recomputed += 1;
        await checkProof(seq, proof, content && !("derived_from" in proof) ? content.request : undefined, resolution, seeds, drawsBySeq, say);
      } else if (row.proof_digest) {
        proven = true;
        stats.pending += 1;
      } else if (proven && content && drawsOf(resolution) && drawsOf(resolution).length) {
        say("unproven", seq);
      }
      drawsBySeq[seq] = drawsOf(resolution);
      prev = row.hash;
    }
    // Heads this browser saw, and commitments it was shown.
    (options.heads || []).forEach(function (h) {
      stats.heads += 1;
      if (h.s > 0 && h.s > rows.length) say("head_missing", h.s);
      else if (h.s > 0 && rows[h.s - 1].hash !== h.h) say("head_rewritten", h.s);
      if (h.k && seeds[h.k] && seeds[h.k].commitment !== h.c) say("commitment_changed", h.k);
    });
    // Signed checkpoints: the export's own, and any the player kept.
    var docs = (options.checkpoints || []).slice();
    if (data.checkpoint) docs.unshift(data.checkpoint);
    for (var c = 0; c < docs.length; c++) {
      var doc = docs[c], cp = doc.checkpoint || {};
      stats.checkpoints += 1;
      var ok = false;
      try { ok = options.publicKey && doc.public_key === options.publicKey && (await verifySignature(doc, options.publicKey)); } catch (e) { ok = null; }
      if (ok === null) say("no_ed25519", cp.sequence);
      else if (!ok) say("signature", cp.sequence);
      if (cp.sequence > 0 && cp.sequence > rows.length) say("checkpoint_missing", cp.sequence);
      else if (cp.sequence > 0 && rows[cp.sequence - 1].hash !== cp.head) say("checkpoint_rewritten", cp.sequence);
    }
    return { problems: problems, stats: stats };
  }

  function format(template, args) {
    return template.replace(/\{(\d)\}/g, function (_m, i) { return String(args[parseInt(i, 10)]); });
  }

  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () { try { resolve(JSON.parse(reader.result)); } catch (e) { reject(e); } };
      reader.onerror = reject;
      reader.readAsText(file);
    });
  }

  function setupVerifier(root) {
    var msgs = JSON.parse(document.getElementById(root.dataset.messages).textContent);
    var out = root.querySelector("[data-verify-output]");
    var button = root.querySelector("[data-verify-run]");
    var exportInput = root.querySelector("[data-verify-export]");
    var checkpointInput = root.querySelector("[data-verify-checkpoints]");
    function line(cls, text) {
      var li = document.createElement("li");
      li.className = cls;
      li.textContent = text;
      return li;
    }
    var headsButton = root.querySelector("[data-verify-heads]");
    if (headsButton) headsButton.addEventListener("click", function () {
      var doc = { campaign: parseInt(root.dataset.campaign, 10), heads: loadHeads(root.dataset.campaign), checkpoints: loadList(cpKey(root.dataset.campaign)) };
      var link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 1)], { type: "application/json" }));
      link.download = "tablee-heads-" + root.dataset.campaign + ".json";
      document.body.appendChild(link);
      link.click();
      link.remove();
    });
    button.addEventListener("click", async function () {
      out.textContent = "";
      out.setAttribute("aria-busy", "true");
      var status = document.createElement("p"), list = document.createElement("ul");
      status.setAttribute("role", "status");
      try {
        var data = exportInput && exportInput.files.length ? await readFile(exportInput.files[0])
          : await (await fetch(root.dataset.exportUrl, { credentials: "same-origin" })).json();
        var key = await (await fetch(root.dataset.keyUrl)).json();
        var kept = [];
        if (checkpointInput) for (var i = 0; i < checkpointInput.files.length; i++) kept.push(await readFile(checkpointInput.files[i]));
        // Checkpoints this browser kept from earlier checks, and the key it first saw (pinned).
        var campaign = root.dataset.campaign, saved = loadList(cpKey(campaign));
        var pinned = localStorage.getItem(KEY_PIN);
        var result = await verify(data, { heads: loadHeads(campaign), checkpoints: kept.concat(saved), publicKey: key.public_key });
        if (pinned && pinned !== key.public_key) result.problems.unshift(["key_changed", 0]);
        if (!result.problems.length) {
          if (!pinned) { try { localStorage.setItem(KEY_PIN, key.public_key); } catch (e) { /* off */ } }
          if (data.checkpoint) {
            saved.push(data.checkpoint);
            saveList(cpKey(campaign), saved.slice(-MAX_CHECKPOINTS));
          }
        }
        result.problems.sort(function (a, b) { return a[1] - b[1]; });
        var s = result.stats;
        if (result.problems.length) {
          status.className = "message message-error";
          status.textContent = format(msgs.broken, [result.problems[0][1], format(msgs[result.problems[0][0]], result.problems[0].slice(1))]);
          result.problems.forEach(function (p) { list.appendChild(line("problem", format(msgs[p[0]], p.slice(1)))); });
          root.dataset.result = "broken";
        } else {
          status.className = "message message-success";
          status.textContent = msgs.ok;
          root.dataset.result = "ok";
        }
        list.appendChild(line("stat", format(msgs.stats, [s.rolls, s.recomputed, s.pending, s.server, s.heads, s.checkpoints])));
        list.appendChild(line("stat", format(msgs.foreseen, [s.foreseen])));
      } catch (e) {
        status.className = "message message-error";
        status.textContent = msgs.failed + " " + (e && e.message ? e.message : "");
        root.dataset.result = "error";
      }
      out.appendChild(status);
      out.appendChild(list);
      out.removeAttribute("aria-busy");
    });
  }

  function init() {
    armNonces(document);
    witness();
    document.querySelectorAll("[data-rolls-verifier]").forEach(setupVerifier);
    document.body.addEventListener("htmx:afterSwap", function (e) { armNonces(e.target); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
  window.TableeRolls = { verify: verify, canonical: canonical, redraw: redraw };
})();
