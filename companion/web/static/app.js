// dogtable table page: draws the board from /api/geometry, follows /api/events, sends actions.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#d83a34", blue: "#2f6fd6", green: "#2f9e44", yellow: "#f2c200", white: "#f4f4f4",
  black: "#2a2a2a", orange: "#f08c00", purple: "#8e44ad" };

// The page's words come from the catalogue: companion/locale/<lang>/LC_MESSAGES/page.po, turned into
// static/texts/<lang>.json by `scripts/catalogue.py page-json` (docs/languages.md). English fills any gap.
const TEXTS = {};  // lang -> {key: text}, as loaded
async function loadTexts(lang) {
  if (!TEXTS[lang]) {
    const r = await fetch(`/static/texts/${lang}.json`, { cache: "no-cache" });  // fresh after an update
    if (!r.ok) throw new Error(`no texts for language ${lang}`);
    TEXTS[lang] = await r.json();
  }
  return TEXTS[lang];
}
const CARD_LABEL = { swap: "⇄", joker: "★", magnet: "⊳●", copy: "⧉", partner: "⚭", "black-1-7": "◼1-7",
  "black-5": "◼5", "black-6": "◼6" };

function fmt(s, args) { return s.replace(/\{(\w+)\}/g, (_, k) => (k in args ? args[k] : "{" + k + "}")); }

class App {
  constructor() {
    // A language picked on this device wins; otherwise the page follows the service (--lang, config).
    this.picked = localStorage.getItem("dogtable.lang");
    this.lang = "en"; this.languages = { languages: ["en"], names: { en: "English" } };
    this.speak = localStorage.getItem("dogtable.speak") === "1";
    this.state = null; this.geo = null; this.geoKey = ""; this.selected = null; this.lastSpoken = -1;
    this.el = (id) => document.getElementById(id);
  }
  t(key, args) {
    const mine = TEXTS[this.lang] || {}; const en = TEXTS.en || {};
    return fmt(mine[key] !== undefined ? mine[key] : en[key] !== undefined ? en[key] : key, args || {});
  }
  colourName(seat) { const c = this.geo ? this.geo.colours[seat] : String(seat); return this.t(c); }

  async start() {
    this.languages = await (await fetch("/static/texts/languages.json", { cache: "no-cache" })).json();
    await loadTexts("en");
    if (this.picked && this.languages.languages.includes(this.picked)) await this.setLang(this.picked, false);
    else this.picked = null;
    this.bindStatic();
    this.applyLang();
    await this.pairFromLink();
    await this.refresh();
    this.listen();
  }

  bindStatic() {
    const el = this.el;
    el("lang").innerHTML = "";
    for (const code of this.languages.languages) {
      const o = document.createElement("option"); o.value = code; o.textContent = this.languages.names[code] || code;
      o.lang = code; el("lang").appendChild(o);
    }
    el("lang").onchange = (e) => {  // this device only: the table's own language stays as set by --lang/config
      this.picked = e.target.value; localStorage.setItem("dogtable.lang", this.picked); this.setLang(this.picked, true);
    };
    el("mode").onchange = (e) => this.post("mode", { mode: e.target.value });
    el("pairbtn").onclick = () => this.pair();
    el("pin").onkeydown = (e) => { if (e.key === "Enter") this.pair(); };
    el("settle").onclick = () => this.post("settle", {});
    el("discL").onclick = () => this.post("disc", { direction: -1 });
    el("discR").onclick = () => this.post("disc", { direction: 1 });
    el("undo").onclick = () => this.post("undo", {});
    el("hintbtn").onclick = () => this.post("hint", {});
    el("bot").onclick = () => this.post("bot", {});
    el("exchange").onclick = () => this.post("exchange", {});
    el("discard").onclick = () => this.post("discard", {});
    el("sitout").onclick = () => this.state && this.post("sitout", { seat: this.state.turn });
    el("speak").checked = this.speak;
    el("speak").onchange = (e) => { this.speak = e.target.checked; localStorage.setItem("dogtable.speak", this.speak ? "1" : "0"); };
    el("turnsel").onchange = (e) => this.post("turn", { seat: Number(e.target.value) });
    el("newgame").onclick = () => this.post("newgame", { variant: el("nvariant").value, players: Number(el("nplayers").value) });
    el("nvariant").onchange = () => this.fillPlayers();
    el("setpos").onclick = () => {
      let pos; try { pos = JSON.parse(el("posjson").value); } catch (e) { return this.toast(String(e)); }
      this.post("position", { position: pos });
    };
  }

  async setLang(lang, redraw) {
    if (!this.languages.languages.includes(lang)) return;
    await loadTexts(lang);
    this.lang = lang;
    if (redraw) { this.applyLang(); if (this.state) this.render(); }
  }

  applyLang() {
    document.documentElement.lang = this.lang;
    for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = this.t(node.dataset.i18n);
    this.el("lang").value = this.lang; this.el("lang").setAttribute("aria-label", this.t("language"));
    const mode = this.el("mode"); const cur = this.state ? this.state.mode : mode.value;
    mode.innerHTML = "";
    for (const m of ["referee", "highlight", "training"]) {
      const o = document.createElement("option"); o.value = m; o.textContent = this.t(m); mode.appendChild(o);
    }
    if (cur) mode.value = cur;
  }

  async refresh() {
    const r = await fetch("/api/state", { cache: "no-store" });
    this.onState(await r.json());
  }

  listen() {
    if (!window.EventSource) { setInterval(() => this.refresh(), 1000); return; }
    if (this.es) this.es.close();
    const es = new EventSource("/api/events");
    this.es = es;
    es.onmessage = (e) => { this.el("toast").hidden = true; this.onState(JSON.parse(e.data)); };
    es.onerror = () => { this.toast(this.t("disconnected")); };
  }

  async onState(s) {
    const key = s.variant + "/" + s.segments + "/" + s.game_id;
    if (!this.picked && s.lang && s.lang !== this.lang) { await this.setLang(s.lang, false); this.applyLang(); }
    this.state = s;
    if (key !== this.geoKey) {
      this.geo = await (await fetch("/api/geometry", { cache: "no-store" })).json();
      this.geoKey = key; this.selected = null;
      this.fillNewGame();
    }
    this.render();
    this.maybeSpeak();
  }

  async post(action, body, quiet) {
    // every change carries the CSRF token that only this page can read (GET /api/csrf); a token
    // from before a restart of the service is fetched anew once
    try {
      for (let attempt = 0; ; attempt++) {
        if (!this.csrf) this.csrf = (await (await fetch("/api/csrf", { cache: "no-store" })).json()).csrf;
        const r = await fetch("/api/" + action, { method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-Dogtable-CSRF": this.csrf }, body: JSON.stringify(body) });
        const out = await r.json().catch(() => ({}));
        if (r.status === 403 && out.csrf && attempt === 0) { this.csrf = null; continue; }
        if (out.csrf) this.csrf = out.csrf;  // pairing makes a new one
        if (!r.ok && !quiet) this.toast(out.error || r.statusText);
        return r.ok;
      }
    } catch (e) { if (!quiet) this.toast(String(e)); return false; }
  }

  async pair() {
    const ok = await this.post("pair", { pin: this.el("pin").value });
    // the event stream saw the old cookie when it connected: reconnect it as a paired device
    if (ok) { this.toast(this.t("paired_ok")); await this.refresh(); this.listen(); }
  }

  async pairFromLink() {
    // the QR code's link: http://<table>/#pair=<code>. The fragment never reaches a server or a
    // log; it is taken out of the address bar at once, and the code expires anyway.
    const m = /^#pair=([A-Za-z0-9_-]{8,64})$/.exec(location.hash);
    if (!m) return;
    history.replaceState(null, "", location.pathname + location.search);
    if (await this.post("pair", { code: m[1] }, true)) this.toast(this.t("paired_ok"));
    else this.el("pairnote").textContent = this.t("pair_link_failed");  // stays until paired
  }

  toast(text) {
    const t = this.el("toast"); t.textContent = text; t.hidden = false;
    clearTimeout(this.toastTimer); this.toastTimer = setTimeout(() => (t.hidden = true), 4000);
  }

  maybeSpeak() {
    const s = this.state; if (!this.speak || !window.speechSynthesis || !s.verdict) return;
    if (s.seq === this.lastSpoken) return;
    const v = s.verdict;
    if (!v.legal || (s.mode === "training" && s.hint)) {
      const text = v.legal ? s.hint.why[this.lang] : v.reason[this.lang];
      const u = new SpeechSynthesisUtterance(text); u.lang = this.lang;
      speechSynthesis.cancel(); speechSynthesis.speak(u);
    }
    this.lastSpoken = s.seq;
  }

  fillNewGame() {
    const s = this.state; const v = this.el("nvariant"); v.innerHTML = "";
    for (const [name, info] of Object.entries(s.variants || {})) {
      const o = document.createElement("option"); o.value = name; o.textContent = info.title; v.appendChild(o);
    }
    v.value = s.variant; this.fillPlayers(); this.el("nplayers").value = String(s.players);
  }

  fillPlayers() {
    const s = this.state; const p = this.el("nplayers"); const info = (s.variants || {})[this.el("nvariant").value];
    p.innerHTML = "";
    for (const n of (info ? info.players : [4])) {
      const o = document.createElement("option"); o.value = String(n); o.textContent = this.t("players", { n }); p.appendChild(o);
    }
  }

  // --- rendering -------------------------------------------------------------------------
  render() {
    const s = this.state; if (!s || !this.geo) return;
    const el = this.el;
    el("title").textContent = s.title;
    el("mode").value = s.mode;
    el("pairbar").hidden = s.paired;
    el("pinshow").hidden = !s.pin;
    el("pinval").textContent = s.pin || "";
    // the pairing QR code, only on the table's own screen (the server sends pair_url to it alone)
    el("pairqrbox").hidden = !s.pair_url;
    if (s.pair_url && el("pairqr").dataset.url !== s.pair_url) {
      el("pairqr").dataset.url = s.pair_url; el("pairqr").src = "/api/pair-qr.svg?t=" + Date.now();
    }
    const can = s.paired;
    for (const id of ["undo", "hintbtn", "bot", "exchange", "discard", "sitout", "settle", "discL", "discR", "mode", "newgame", "setpos", "turnsel"])
      el(id).disabled = !can;
    el("undo").disabled = !can || !s.can_undo;
    el("hintbtn").hidden = !s.card;
    el("exchange").hidden = s.phase !== "exchange";
    el("discard").hidden = !s.card;
    el("settle").hidden = !s.staged;
    const black = s.variant === "black";
    el("discL").hidden = el("discR").hidden = !black;
    el("bot").hidden = !s.sim;
    el("bot").disabled = !can || !["exchange", "play"].includes(s.phase) || !!s.flag;
    el("status").textContent = this.statusLine();
    this.renderDevices(); this.renderVerdict(); this.renderCards(); this.renderSeats(); this.renderLog(); this.renderSettings(); this.drawBoard();
  }

  statusLine() {
    const s = this.state; const p = this.colourName(s.turn);
    if (s.phase === "over") return this.t("over", { p: (s.winner || []).map((x) => this.colourName(x)).join(" + ") });
    if (s.phase === "setup") return this.t("setup");
    if (s.phase === "exchange") return this.t("exchange") + " · " + this.t("turn_of", { p });
    if (s.card) return this.t("waiting_move", { p: this.colourName(s.card_seat), c: s.card });
    return this.t("waiting_card", { p });
  }

  // the real table (dogtable run): missing devices, what the camera sees, a card to confirm
  renderDevices() {
    const d = this.state.devices; const box = this.el("devices");
    box.hidden = !d; if (!d) return;
    box.innerHTML = "";
    const line = (text, cls) => { const p = document.createElement("div"); p.textContent = text; if (cls) p.className = cls; box.appendChild(p); };
    if (d.ask_card) line(this.t("ask_card", { c: d.ask_card.looks_like || "?" }), "ask");
    if (d.notice) line(d.notice, "notice");
    if (d.camera && d.camera.kind !== "settled") line(this.t("camera", { m: d.camera.message }));
    for (const m of Object.values(d.problems || {})) line(m);
  }

  renderVerdict() {
    const s = this.state; const box = this.el("verdict"); const v = s.flag || s.verdict;
    let cls = "idle", title = this.t("ready"), reason = this.t("select_hint");
    if (v) {
      cls = v.legal ? (v.play ? "ok" : "info") : "bad";
      title = v.legal ? (v.play ? this.t("legal") : this.t("notice")) : this.t("flagged");
      reason = v.reason[this.lang];
    }
    if (s.card && !s.flag && (!v || v.legal)) {
      title = this.t("waiting_move", { p: this.colourName(s.card_seat), c: s.card });
      cls = "info";
    }
    if (s.card && !s.flag) {
      const extra = s.plays_total ? this.t("plays_n", { n: s.plays_total }) : this.t("nolegal");
      if (!v || v.legal) { reason = (v && v.play ? reason + " — " : "") + `${s.card}: ${extra}`; }
    }
    box.className = "verdict " + cls;
    this.el("vtitle").textContent = title;
    this.el("vreason").textContent = reason;
    const h = this.el("hint");
    h.hidden = !s.hint;
    if (s.hint) h.textContent = `${this.t("hint_title")}: ${s.hint.play} — ${s.hint.why[this.lang]}`;
  }

  renderCards() {
    const s = this.state; const hand = this.el("hand"); const cards = this.el("cards");
    hand.innerHTML = ""; cards.innerHTML = "";
    const mk = (card, cls) => {
      const b = document.createElement("button"); b.className = "cardbtn " + (cls || ""); b.textContent = CARD_LABEL[card] ? `${CARD_LABEL[card]} ${card}` : card;
      if (card === s.card) b.classList.add("sel");
      b.disabled = !s.paired || !["exchange", "play"].includes(s.phase);
      b.onclick = () => this.post("card", { card }); b.dataset.card = card; return b;
    };
    const seat = s.card_seat !== null && s.card_seat !== undefined ? s.card_seat : s.turn;
    const h = s.sim && s.sim.hands ? s.sim.hands[String(seat)] : null;
    if (h && h.length) {
      const l = document.createElement("span"); l.className = "label"; l.textContent = this.t("hand_of", { p: this.colourName(seat) });
      hand.appendChild(l);
      for (const c of h) hand.appendChild(mk(c, "inhand"));
    }
    for (const c of s.deck) cards.appendChild(mk(c));
    const chip = this.el("turnchip"); chip.innerHTML = "";
    const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = COLOURS[this.geo.colours[s.turn]];
    chip.appendChild(dot); chip.appendChild(document.createTextNode(this.t("turn_of", { p: this.colourName(s.turn) })));
    this.el("cardchip").textContent = s.card ? (CARD_LABEL[s.card] ? `${CARD_LABEL[s.card]} ${s.card}` : s.card) : "";
  }

  renderSeats() {
    const s = this.state; const tb = this.el("seats"); tb.innerHTML = "";
    this.el("roundline").textContent = this.t("round_line", { r: s.round, n: s.cards_this_round, d: this.colourName(s.dealer) });
    for (const seat of s.seats) {
      const tr = document.createElement("tr");
      if (seat.seat === s.turn && s.phase !== "over") tr.className = "turn";
      if (seat.out) tr.className = "out";
      const td = (txt) => { const d = document.createElement("td"); d.textContent = txt; tr.appendChild(d); return d; };
      const c = td(""); const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = COLOURS[seat.colour];
      c.appendChild(dot); c.appendChild(document.createTextNode(" " + this.t(seat.colour)));
      td(seat.out ? this.t("out") : this.t("cards_left", { n: seat.cards }));
      td(this.t("home", { n: seat.home }));
      td(seat.plays_for !== null ? this.t("plays_for", { p: this.colourName(seat.plays_for) }) : "");
      tb.appendChild(tr);
    }
  }

  renderLog() {
    const s = this.state; const ol = this.el("log"); ol.innerHTML = "";
    for (const e of s.log.slice().reverse()) {
      const li = document.createElement("li"); li.className = e.kind; li.textContent = e.text[this.lang]; ol.appendChild(li);
    }
  }

  renderSettings() {
    const s = this.state; const box = this.el("botseats"); box.innerHTML = "";
    if (s.sim) {
      for (const seat of s.seats) {
        const l = document.createElement("label"); l.className = "row";
        const cb = document.createElement("input"); cb.type = "checkbox"; cb.checked = s.sim.bots.includes(seat.seat);
        cb.disabled = !s.paired;
        cb.onchange = () => {
          const bots = s.seats.map((x) => x.seat).filter((x) => (x === seat.seat ? cb.checked : s.sim.bots.includes(x)));
          this.post("bots", { seats: bots });
        };
        const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = COLOURS[seat.colour];
        l.appendChild(cb); l.appendChild(dot); l.appendChild(document.createTextNode(this.t(seat.colour))); box.appendChild(l);
      }
    }
    const sel = this.el("turnsel"); sel.innerHTML = "";
    for (const seat of s.seats) {
      const o = document.createElement("option"); o.value = String(seat.seat); o.textContent = this.t(seat.colour); sel.appendChild(o);
    }
    sel.value = String(s.turn);
    const ta = this.el("posjson");
    if (document.activeElement !== ta) ta.value = JSON.stringify(s.position);
    this.el("timing").textContent = this.t("timing", { a: s.timing_ms.card_to_leds, b: s.timing_ms.settle_to_verdict });
  }

  drawBoard() {
    const s = this.state, g = this.geo, svg = this.el("board");
    const half = Math.max(...Object.values(g.centres).map(([x, y]) => Math.max(Math.abs(x), Math.abs(y)))) + 26;
    svg.setAttribute("viewBox", `${-half} ${-half} ${2 * half} ${2 * half}`);
    svg.innerHTML = "";
    const add = (tag, attrs, parent) => {
      const n = document.createElementNS(SVGNS, tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
      (parent || svg).appendChild(n); return n;
    };
    add("rect", { x: -half + 2, y: -half + 2, width: 2 * half - 4, height: 2 * half - 4, rx: 28, class: "b-base" });
    if (g.centre_radius) add("circle", { cx: 0, cy: 0, r: g.centre_radius, class: "b-centre" });
    if (g.disc_fields.length && g.disc_radius) add("circle", { cx: 0, cy: 0, r: g.disc_radius, class: "b-disc" });
    const starts = new Set(g.start_fields), paws = new Set(g.paw_fields), special = new Set(g.special_fields);
    const fr = g.field_radius;
    const seatColour = (fid) => { const m = /^S(\d+)/.exec(fid); return m ? g.colours[Number(m[1])] : null; };
    const inGame = new Set(s.seats.map((x) => x.seat));
    // seat labels behind each start field, so a phone user knows which side is whose
    for (const seat of s.seats) {
      const [x, y] = g.centres[g.start_fields[seat.seat]];
      const len = Math.hypot(x, y) || 1, ox = x + (x / len) * 22, oy = y + (y / len) * 22;
      let deg = (Math.atan2(y, x) * 180) / Math.PI - 90;
      if (deg < -90) deg += 180;  // keep every label upright
      if (deg > 90) deg -= 180;
      const t = add("text", { x: ox, y: oy, class: "seatlabel", transform: `rotate(${deg.toFixed(1)} ${ox} ${oy})` });
      t.textContent = this.t(seat.colour);
    }
    for (const [fid, [x, y]] of Object.entries(g.centres)) {
      const m = /^S(\d+)([HK])(\d+)$/.exec(fid);
      if (m && (!inGame.has(Number(m[1])) || (m[2] === "H" && Number(m[3]) >= g.home_slots))) continue;
      let cls = "f";
      if (m && m[2] === "K") cls += " kennel";
      if (starts.has(fid)) cls += " start";
      if (paws.has(fid)) cls += " paw";
      if (special.has(fid)) cls += " special";
      const c = add("circle", { cx: x, cy: y, r: fr, class: cls, "data-field": fid });
      const col = seatColour(fid) || (starts.has(fid) ? g.colours[g.start_fields.indexOf(fid)] : null);
      // CSSOM, not attributes: the stylesheet's .f rules would win over presentation attributes
      if (col) c.style.stroke = COLOURS[col];
      if (m && m[2] === "H") { c.style.fill = COLOURS[col]; c.style.fillOpacity = "0.25"; }
      c.onclick = () => this.clickField(fid);
    }
    for (const [fid, role] of Object.entries(s.leds || {})) {
      if (!g.centres[fid]) continue;
      const [x, y] = g.centres[fid];
      add("circle", { cx: x, cy: y, r: fr + 3.5, class: "led " + role, "data-led": fid });
    }
    for (const [fid, who] of Object.entries(s.board || {})) {
      if (!g.centres[fid]) continue;
      const [x, y] = g.centres[fid];
      const dog = who === "dog";
      const colour = dog ? "#111" : COLOURS[g.colours[Number(who.slice(1))]];
      const p = add("circle", { cx: x, cy: y, r: dog ? 8.2 : 7.6, class: "piece" + (dog ? " dog" : ""), fill: colour,
        "data-piece": fid });
      if (this.selected === fid) p.classList.add("sel");
      p.onclick = (e) => { e.stopPropagation(); this.clickField(fid); };
    }
    if (this.selected && g.centres[this.selected]) {
      const [x, y] = g.centres[this.selected];
      add("circle", { cx: x, cy: y, r: fr + 7, class: "selring" });
    }
    const [dx, dy] = g.discard.centre, [dw, dh] = g.discard.size;
    if (s.card) {
      add("rect", { x: dx - dw / 2, y: dy - dh / 2, width: dw, height: dh, rx: 7, class: "discard" });
      const t = add("text", { x: dx, y: dy, class: "cardtext", "font-size": s.card.length > 3 ? 14 : 26 });
      t.textContent = CARD_LABEL[s.card] ? `${CARD_LABEL[s.card]}` : s.card;
      if (CARD_LABEL[s.card]) { const t2 = add("text", { x: dx, y: dy + 24, class: "cardtext", "font-size": 11 }); t2.textContent = s.card; }
    } else {
      add("rect", { x: dx - dw / 2, y: dy - dh / 2, width: dw, height: dh, rx: 7, class: "discard-empty" });
    }
  }

  clickField(fid) {
    const s = this.state;
    if (!s.paired) { this.toast(this.t("pair_prompt")); return; }
    const occupied = s.board && s.board[fid];
    if (!this.selected) {
      if (occupied) { this.selected = fid; this.drawBoard(); }
      return;
    }
    if (this.selected === fid) { this.selected = null; this.drawBoard(); return; }
    const from = this.selected; this.selected = null; this.drawBoard();
    this.post("move", { from, to: fid });
  }
}

window.addEventListener("DOMContentLoaded", () => { window.dogtable = new App(); window.dogtable.start(); });
