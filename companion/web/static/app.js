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
// symbols DejaVu (Debian's default font) has; the copy card's ⧉ is in no common font: drawn as SVG
const CARD_LABEL = { swap: "⇄", joker: "★", magnet: "⊳●", partner: "⚭", "black-1-7": "◼1-7",
  "black-5": "◼5", "black-6": "◼6" };
const COPY_SVG = '<svg class="copyicon" viewBox="0 0 16 16" width="1em" height="1em" aria-hidden="true">' +
  '<rect x="1.5" y="1.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.6"/>' +
  '<rect x="5.5" y="5.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>';
// asked at each play, so a change of the system setting counts at once
const reducedMotion = () => !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);

// a card's face in a button or chip: symbol (or the copy icon) and the card's name in the page's
// language ("⇄ Tauscher"), never its id; number cards are their number
function cardFace(node, card, name) {
  const said = name !== undefined ? name : (window.dogtable ? window.dogtable.cardName(card) : card);
  node.textContent = "";
  if (card === "copy") { node.insertAdjacentHTML("beforeend", COPY_SVG); node.appendChild(document.createTextNode(" " + said)); return node; }
  node.textContent = CARD_LABEL[card] ? `${CARD_LABEL[card]} ${said}` : said;
  return node;
}
const JOIN_TEXTS = { loopback: "join_loopback", no_network: "join_no_network" };  // companion.web.join's problems
const PRESENCE_WORDS = { paused: "presence_paused", lost: "presence_lost", offline: "presence_offline" };  // a linked table's state -> words
const SEAT_STATES = { you: "seat_yours", phone: "seat_taken", bot: "seat_bot", table: "seat_table" };  // holder -> words; null: free
const FIELD_LABEL_MS = 3000;  // a tapped field's name stays this long: time to read it, then out of the way

function fmt(s, args) { return s.replace(/\{(\w+)\}/g, (_, k) => (k in args ? args[k] : "{" + k + "}")); }

class App {
  constructor() {
    // A language picked on this device wins; otherwise the page follows the service (--lang, config).
    this.picked = localStorage.getItem("dogtable.lang");
    this.lang = "en"; this.languages = { languages: ["en"], names: { en: "English" } };
    this.speak = localStorage.getItem("dogtable.speak") === "1";
    this.state = null; this.geo = null; this.geoKey = ""; this.selected = null; this.lastSpoken = -1;
    this.prevBoard = null; this.drag = null;
    this.el = (id) => document.getElementById(id);
  }
  t(key, args) {
    const mine = TEXTS[this.lang] || {}; const en = TEXTS.en || {};
    return fmt(mine[key] !== undefined ? mine[key] : en[key] !== undefined ? en[key] : key, args || {});
  }
  colourName(seat) { const c = this.geo ? this.geo.colours[seat] : String(seat); return this.t(c); }
  // a card in words: "swap" -> "Tauscher" (page.po card_<id>); number cards stay as printed
  cardName(card) {
    if (card === null || card === undefined) return "";
    const key = "card_" + card; const mine = TEXTS[this.lang] || {}; const en = TEXTS.en || {};
    return key in mine || key in en ? this.t(key) : String(card);
  }
  // this device: its seat, whether it is the host. The server says so in `me` (SEATS.md); a
  // server without it gives today's fields: `viewer`, and the PIN sent only to the table's own screen
  me() {
    const s = this.state;
    if (s.me) return s.me;
    return { seat: s.viewer === undefined ? null : s.viewer, host: !!s.pin, paired: !!s.paired };
  }
  // who holds a seat: "you", "phone" (another device), "bot", or null (free: the table plays it)
  holder(seat) {
    if (seat.holder !== undefined) return seat.holder;
    const s = this.state;
    if (this.me().seat === seat.seat) return "you";
    if (s.sim && s.sim.bots.includes(seat.seat)) return "bot";
    return null;
  }
  // the table-wide actions (new game, mode, bots, turn, position) are the host's; a server that
  // does not send `me` still lets every paired device do them
  isHost() { return this.state.me ? !!this.state.me.host : !!this.state.paired; }
  // the body's `seat` for a seat action: a phone that holds a seat speaks for it (SEATS.md)
  mySeat(fallback) { const m = this.me().seat; return m !== null && m !== undefined ? m : fallback; }

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
    el("hintbtn").onclick = () => this.post("hint", this.seatBody({}));
    el("seatbtn").onclick = () => { this.pickOpen = !this.pickOpen; this.el("seatnote").hidden = true; this.render();
      if (this.pickOpen) this.el("seatpick").scrollIntoView({ block: "nearest" }); };
    el("seatclose").onclick = () => { this.pickOpen = false; this.render(); };
    el("watchbtn").onclick = () => { this.leaving = true; this.claim(null); };
    el("lognotation").onclick = () => { this.logNotation = !this.logNotation; this.renderLog(); };
    el("bot").onclick = () => this.post("bot", {});
    el("exchange").onclick = () => this.post("exchange", {});
    el("zoom").onclick = () => { this.zoom = !this.zoom; this.render(); };
    // drag on a desktop: press on a piece, release over a field (a tap still selects, then targets)
    el("board").addEventListener("pointerup", (e) => this.dragEnd(e));
    el("discard").onclick = () => this.post("discard", this.seatBody({}));
    el("sitout").onclick = () => this.state && this.post("sitout", { seat: this.mySeat(this.state.turn) });
    el("speak").checked = this.speak;
    el("speak").onchange = (e) => { this.speak = e.target.checked; localStorage.setItem("dogtable.speak", this.speak ? "1" : "0"); };
    el("turnsel").onchange = (e) => this.post("turn", { seat: Number(e.target.value) });
    el("newgame").onclick = () => this.post("newgame", { variant: el("nvariant").value, players: Number(el("nplayers").value),
                                                         direction: el("ndirection").value || null });
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
    const r = await this.send(action, body);
    if (!r.ok && !quiet) this.toast(r.error);
    return r.ok;
  }

  // one action: {ok, status, error, out}. Every change carries the CSRF token that only this page
  // can read (GET /api/csrf); a token from before a restart of the service is fetched anew once
  async send(action, body) {
    try {
      for (let attempt = 0; ; attempt++) {
        if (!this.csrf) this.csrf = (await (await fetch("/api/csrf", { cache: "no-store" })).json()).csrf;
        const r = await fetch("/api/" + action, { method: "POST", credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-Dogtable-CSRF": this.csrf }, body: JSON.stringify(body) });
        const out = await r.json().catch(() => ({}));
        if (r.status === 403 && out.csrf && attempt === 0) { this.csrf = null; continue; }
        if (out.csrf) this.csrf = out.csrf;  // pairing makes a new one
        return { ok: r.ok, status: r.status, error: out.error || r.statusText, out };
      }
    } catch (e) { return { ok: false, status: 0, error: String(e), out: {} }; }
  }

  seatBody(body) { const m = this.me().seat; if (m !== null && m !== undefined) body.seat = m; return body; }

  // take a seat (or null: watch). A refusal is said in words in the picker: whose seat, and what to do
  async claim(seat) {
    const note = this.el("seatnote"); note.hidden = true;
    const r = await this.send("seat", { seat });
    if (r.ok) { this.pickOpen = false; await this.refresh(); return true; }
    note.textContent = this.seatRefusal(seat, r); note.hidden = false;
    return false;
  }

  seatRefusal(seat, r) {
    if (r.status !== 409 || seat === null) return r.error;
    const info = (this.state.seats || []).find((x) => x.seat === seat);
    const p = this.colourName(seat);
    const bot = (info && this.holder(info) === "bot") || /\bbot\b/i.test(r.error || "");
    return this.t(bot ? "seat_bot_msg" : "seat_taken_msg", { p });
  }

  async pair() {
    const ok = await this.post("pair", { pin: this.el("pin").value });
    // the event stream saw the old cookie when it connected: reconnect it as a paired device
    if (ok) { this.toast(this.t("paired_ok")); this.pickOpen = undefined; await this.refresh(); this.listen(); }
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
    // ... unless no phone could open the address it holds: then the screen says why and what to change
    const problem = this.joinProblem();
    el("joinproblem").hidden = !problem; el("joinproblem").textContent = problem ? this.t(JOIN_TEXTS[problem] || "join_loopback") : "";
    if (problem) el("pairqrbox").hidden = true;
    if (s.pair_url && !problem && el("pairqr").dataset.url !== s.pair_url) {
      el("pairqr").dataset.url = s.pair_url; el("pairqr").src = "/api/pair-qr.svg?t=" + Date.now();
    }
    // a seat's actions: its holder's (a watcher's would be refused), or the host's for a seat nobody holds
    const me = this.me(), host = s.paired && this.isHost();
    const can = s.paired && (!s.me || me.host || (me.seat !== null && me.seat !== undefined));
    for (const id of ["undo", "hintbtn", "discard", "sitout", "settle", "discL", "discR"]) el(id).disabled = !can;
    for (const id of ["bot", "exchange", "mode", "newgame", "ndirection", "setpos", "turnsel"]) el(id).disabled = !host;
    el("undo").disabled = !can || !s.can_undo;
    el("hintbtn").hidden = !s.card;
    el("exchange").hidden = s.phase !== "exchange" || s.hands_known;
    el("discard").hidden = !s.card;
    el("settle").hidden = !s.staged;
    const black = s.variant === "black";
    el("discL").hidden = el("discR").hidden = !black;
    el("bot").hidden = !s.sim;
    el("bot").disabled = !host || !["exchange", "play"].includes(s.phase) || !!s.flag;
    el("status").textContent = this.statusLine();
    el("zoom").textContent = this.t(this.zoom ? "zoom_out" : "zoom_in");
    this.renderSeatPicker(); this.renderDevices(); this.renderJournal(); this.renderVerdict(); this.renderCards(); this.renderSeats(); this.renderLog(); this.renderSettings(); this.drawBoard();
  }

  // why no phone can join (the server's `join_problem`; a server without it: a pairing link to this
  // computer only, which no phone can open)
  joinProblem() {
    const s = this.state;
    if (s.join_problem !== undefined) return s.join_problem;
    if (!s.pair_url) return null;
    let host = "";
    try { host = new URL(s.pair_url).hostname; } catch (e) { return null; }
    return host === "localhost" || host.startsWith("127.") || host === "[::1]" ? "loopback" : null;
  }

  // the seat picker: each colour a big button saying who holds it; shown once after pairing, and
  // from the seat button in the top bar later. The host also frees seats and sees the host PIN.
  renderSeatPicker() {
    const s = this.state, me = this.me(), el = this.el;
    const btn = el("seatbtn"); btn.hidden = !s.paired; btn.textContent = "";
    const seated = me.seat !== null && me.seat !== undefined && s.seats.some((x) => x.seat === me.seat);
    if (seated) {
      const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = COLOURS[this.geo.colours[me.seat]];
      btn.appendChild(dot); btn.appendChild(document.createTextNode(" " + this.colourName(me.seat)));
    } else btn.textContent = this.t("seat_watching");
    btn.title = this.t("seat_title");
    // opened by itself once, when a phone has just paired and holds no seat yet
    if (this.pickOpen === undefined && s.paired) this.pickOpen = !seated && !me.host;
    if (seated && this.seatedAs !== me.seat) this.pickOpen = false;  // a seat taken (here or by the host): done
    if (!seated && this.seatedAs !== null && this.seatedAs !== undefined && !this.leaving) {
      this.pickOpen = true;  // the host freed this phone's seat: ask again, and say why
      this.el("seatnote").textContent = this.t("seat_freed", { p: this.colourName(this.seatedAs) });
      this.el("seatnote").hidden = false;
    }
    if (!seated) this.leaving = false;  // (a state from before the answer may still come seated)
    this.seatedAs = seated ? me.seat : null;
    const open = !!(s.paired && this.pickOpen);
    el("seatpick").hidden = !open; btn.setAttribute("aria-expanded", open ? "true" : "false");
    if (!open) return;
    const list = el("seatlist"); list.innerHTML = "";
    for (const seat of s.seats) {
      const who = this.holder(seat);
      const row = document.createElement("div"); row.className = "seatrow";
      const b = document.createElement("button"); b.className = "seatchoice" + (who === "you" ? " mine" : "");
      b.dataset.seat = String(seat.seat); b.dataset.holder = who || "free";
      const dot = document.createElement("span"); dot.className = "dot big"; dot.style.background = COLOURS[seat.colour];
      const name = document.createElement("b"); name.textContent = this.t(seat.colour);
      const state = document.createElement("span"); state.className = "seatstate";
      state.textContent = this.t(SEAT_STATES[who] || "seat_free", { t: seat.table || "" });
      if (who === "table") b.disabled = true;  // played at another table: nobody here can take it
      b.appendChild(dot); b.appendChild(name); b.appendChild(state);
      b.setAttribute("aria-pressed", who === "you" ? "true" : "false");
      b.onclick = () => (who === "you" ? (this.pickOpen = false, this.render()) : this.claim(seat.seat));
      row.appendChild(b);
      if (me.host && who === "phone") {
        const f = document.createElement("button"); f.className = "freebtn"; f.dataset.free = String(seat.seat);
        f.textContent = this.t("seat_free_btn", { p: this.t(seat.colour) });
        f.onclick = () => this.post("free", { seat: seat.seat });
        row.appendChild(f);
      }
      list.appendChild(row);
    }
    el("watchbtn").classList.toggle("mine", !seated);
    el("hostbox").hidden = !s.host_pin;
    el("hostpin").textContent = s.host_pin || "";
  }

  // one line, always about now: who must do what
  statusLine() {
    const s = this.state; const p = this.colourName(s.turn);
    if (s.phase === "over") return this.t("over", { p: (s.winner || []).map((x) => this.colourName(x)).join(" + ") });
    if (s.phase === "setup") return this.t("setup");
    if (s.phase === "exchange") {
      if (!s.hands_known) return this.t(s.team_game ? "st_exchange_real_team" : "st_exchange_real_solo");
      const list = s.to_give.map((x) => this.colourName(x)).join(", ");
      return this.t(s.team_game ? "st_exchange_team" : "st_exchange_solo", { list });
    }
    if (s.flag) return this.t("st_flag", { p: this.colourName(s.flag.seat) });
    if (s.card) {
      const cp = this.colourName(s.card_seat);
      const c = this.cardName(s.card);
      if (s.stuck) return this.t(s.stuck, { p: cp, c });
      if (s.staged) return this.t("st_staged", { p: cp });
      return this.t(s.plays_total === 1 ? "st_moves_1" : "st_moves", { p: cp, c, n: s.plays_total });
    }
    return s.hands_known ? this.t("st_play_hand", { p }) : this.t("waiting_card", { p });
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
    for (const h of d.hints || []) line(h[this.lang] || h.en, "notice");  // what would help the camera
    for (const m of Object.values(d.problems || {})) line(m);
    const r = d.remote;  // a game linked with other tables (docs/remote.md)
    if (r) {
      if (r.role === "host") line(this.t("remote_host", { g: r.game }) + (r.code ? " " + this.t("remote_code", { c: r.code }) : ""));
      else line(this.t("remote_joined", { g: r.game }));
      for (const [t, p] of Object.entries(r.tables || {})) {
        if (p === "online" || t === r.table) continue;
        line(this.t("remote_waits", { t, p: this.t(PRESENCE_WORDS[p] || "presence_paused") }), "notice");
        if (r.role === "host" && p === "lost" && this.state.me && this.state.me.host) {
          const b = document.createElement("button"); b.className = "handover"; b.dataset.table = t;
          b.textContent = this.t("remote_take_seats", { t });
          b.onclick = () => this.post("handover", { table: t });
          box.appendChild(b);
        }
      }
      if (r.problem) line(r.problem, "notice");
    }
    if (d.carry) line(d.carry, "ask");  // a play of another table to carry out on this board
  }

  // after a power cut the journal may have been repaired at start: the players should know
  // what was kept and what (if anything) was lost, not only the log
  renderJournal() {
    const r = this.state.journal_repaired; const box = this.el("journal");
    box.hidden = !r; if (!r) return;
    let text = r.games ? this.t("journal_repaired", { g: r.games, e: r.events }) : this.t("journal_repaired_none");
    text += " " + this.t(r.more_may_be_lost ? "journal_lost_unsure" : "journal_lost", { n: r.lost });
    if (r.kept_as) text += " " + this.t("journal_kept_as", { f: r.kept_as });
    box.textContent = text;
  }

  // the verdict box belongs to one card and one turn: a card in play shows only that card's
  // state; a verdict is shown only until the next card is shown
  renderVerdict() {
    const s = this.state; const box = this.el("verdict"); const v = s.flag || s.verdict;
    let cls = "idle", title = this.t("ready"), reason = this.statusLine(), notation = "";
    if (s.flag) {
      cls = "bad"; title = this.t("flagged"); reason = s.flag.reason[this.lang];
    } else if (s.card) {
      cls = s.stuck ? "bad" : "info";
      // a card that cannot move is not "move the pieces": the words say what to do instead
      const c = this.cardName(s.card);
      title = this.t(s.stuck ? "plays_card" : "waiting_move", { p: this.colourName(s.card_seat), c });
      reason = s.stuck ? this.t(s.stuck, { p: this.colourName(s.card_seat), c })
        : this.t(s.plays_total === 1 ? "plays_1" : "plays_n", { n: s.plays_total }) + " — " + this.t("select_hint");
    } else if (v && s.phase !== "exchange") {
      cls = v.legal ? (v.play ? "ok" : "info") : "bad";
      title = v.legal ? (v.play ? this.t("legal") : this.t("notice")) : this.t("flagged");
      reason = v.reason[this.lang]; notation = v.play || "";
    }
    box.className = "verdict " + cls;
    this.el("vtitle").textContent = title;
    this.el("vreason").textContent = reason;
    const vn = this.el("vnotation"); vn.textContent = notation; vn.hidden = !notation || !this.showNotation;
    box.title = notation ? this.t("notation_tap") : "";
    box.onclick = () => { this.showNotation = !this.showNotation; this.renderVerdict(); };
    this.renderPlays();
    const h = this.el("hint");
    h.hidden = !s.hint;
    if (s.hint) { h.textContent = `${this.t("hint_title")}: ${s.hint.words[this.lang]} — ${s.hint.why[this.lang]}`; h.title = s.hint.play; }
  }

  // a hand belongs to a seat: the page shows only the viewer's own (the server sends no other);
  // at a real table no hand is known and the card played is tapped from the deck
  // a phone's tap targets: each play of the card in play as a full-width button in words
  renderPlays() {
    const s = this.state; const box = this.el("plays"); box.innerHTML = "";
    // the card's own seat chooses; the host also for a seat no device holds (SEATS.md); a server
    // without `me`: any device without a seat, as before
    const me = this.me(), cardSeat = (s.seats || []).find((x) => x.seat === s.card_seat);
    const forMe = me.seat === s.card_seat ||
      (s.me ? me.host && cardSeat && this.holder(cardSeat) === null : me.seat === null || me.seat === undefined);
    const mine = s.paired && s.sim && s.card && !s.flag && forMe;
    box.hidden = !mine || !s.play_words.length;
    if (box.hidden) return;
    const h = document.createElement("div"); h.className = "label"; h.textContent = this.t("choose_play"); box.appendChild(h);
    s.play_words.forEach((w, i) => {
      const b = document.createElement("button"); b.className = "playbtn"; b.textContent = w[this.lang];
      b.title = s.plays[i]; b.dataset.play = String(i);
      b.onclick = () => this.post("play", { index: i }); box.appendChild(b);
    });
  }

  renderCards() {
    const s = this.state; const hand = this.el("hand"); const cards = this.el("cards"); const note = this.el("handnote");
    hand.innerHTML = ""; cards.innerHTML = "";
    const active = s.paired && ["exchange", "play"].includes(s.phase);
    const mk = (card, cls, onclick) => {
      const b = document.createElement("button"); b.className = "cardbtn " + (cls || ""); cardFace(b, card);
      if (card === s.card && s.card_seat === s.viewer) b.classList.add("sel");
      b.disabled = !active; b.onclick = onclick; b.dataset.card = card; return b;
    };
    const me = s.viewer;
    let text = "";
    if (!s.hands_known) {
      text = this.t("real_table");
      for (const c of s.deck) cards.appendChild(mk(c, "", () => this.post("card", this.seatBody({ card: c }))));
    } else if (me === null || me === undefined || !s.hand) {
      text = this.t("spectator");
    } else {
      const giving = s.phase === "exchange" && s.to_give.includes(me);
      const to = this.colourName(s.receivers[String(me)]);
      if (giving) text = this.t("give_to", { p: to });
      else if (s.given) text = this.t("gave", { c: this.cardName(s.given), p: to });
      const l = document.createElement("span"); l.className = "label"; l.textContent = this.t("your_hand", { p: this.colourName(me) });
      hand.appendChild(l);
      for (const c of s.hand) {
        const b = mk(c, "inhand", () => (giving ? this.post("give", { seat: me, card: c }) : this.post("card", { card: c, seat: me })));
        if (s.phase === "exchange" && !giving) b.disabled = true;
        hand.appendChild(b);
      }
    }
    note.textContent = text; note.hidden = !text;
    const chip = this.el("turnchip"); chip.innerHTML = "";
    const dot = document.createElement("span"); dot.className = "dot"; dot.style.background = COLOURS[this.geo.colours[s.turn]];
    chip.appendChild(dot);
    chip.appendChild(document.createTextNode(s.phase === "exchange" ? this.t("exchange") : this.t("turn_of", { p: this.colourName(s.turn) })));
    const chipc = this.el("cardchip"); if (s.card) cardFace(chipc, s.card); else chipc.textContent = "";
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
      td(seat.out ? this.t("out") : this.t(seat.cards === 1 ? "cards_left_1" : "cards_left", { n: seat.cards }));
      td(this.t("home", { n: seat.home }));
      td(seat.plays_for !== null ? this.t("plays_for", { p: this.colourName(seat.plays_for) }) : "");
      tb.appendChild(tr);
    }
  }

  renderLog() {
    const s = this.state; const ol = this.el("log"); ol.innerHTML = "";
    this.el("lognotation").setAttribute("aria-pressed", this.logNotation ? "true" : "false");
    this.el("lognotation").hidden = !s.log.some((e) => e.notation);
    for (const e of s.log.slice().reverse()) {
      const li = document.createElement("li"); li.className = e.kind; li.textContent = e.text[this.lang];
      if (e.notation) {  // the words first; the exact notation with the log's button (a finger-sized target)
        li.title = e.notation;
        const n = document.createElement("code"); n.className = "notation"; n.textContent = e.notation; n.hidden = !this.logNotation;
        li.appendChild(n);
      }
      ol.appendChild(li);
    }
  }

  renderSettings() {
    const s = this.state; const box = this.el("botseats"); box.innerHTML = "";
    if (s.sim) {
      for (const seat of s.seats) {
        const l = document.createElement("label"); l.className = "row check";
        const cb = document.createElement("input"); cb.type = "checkbox"; cb.checked = s.sim.bots.includes(seat.seat);
        cb.disabled = !s.paired || !this.isHost();
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
    svg.setAttribute("viewBox", this.zoom ? this.zoomBox(half) : `${-half} ${-half} ${2 * half} ${2 * half}`);
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
      // a play of another table to carry out here: its rings in that player's colour
      const remote = /^remote_(from|to)-([a-z]+)$/.exec(role);
      const ring = add("circle", { cx: x, cy: y, r: fr + 3.5, class: "led " + (remote ? `remote ${remote[1]}` : role),
        "data-led": fid });
      if (remote) ring.style.stroke = COLOURS[remote[2]] || "#888";
    }
    const ranks = this.rankMarks();
    const moved = this.movedFrom(s.board || {});
    for (const [fid, who] of Object.entries(s.board || {})) {
      if (!g.centres[fid]) continue;
      const [x, y] = g.centres[fid];
      const dog = who === "dog";
      const colour = dog ? "#111" : COLOURS[g.colours[Number(who.slice(1))]];
      const grp = add("g", { class: "pc" });
      if (dog) {  // the black dog: a dark piece with two ears
        add("path", { d: `M${x - 7} ${y - 3} l2 -8 l5 5 z M${x + 7} ${y - 3} l-2 -8 l-5 5 z`, class: "dogears" }, grp);
      }
      add("circle", { cx: x, cy: y, r: g.field_radius + 1, class: "hit", "data-at": fid }, grp);  // a finger-sized target
      const p = add("circle", { cx: x, cy: y, r: dog ? 8.2 : 7.6, class: "piece" + (dog ? " dog" : ""), fill: colour,
        "data-piece": fid }, grp);
      if (dog) { p.setAttribute("aria-label", this.t("black_dog")); add("circle", { cx: x, cy: y + 1, r: 2, class: "dognose" }, grp); }
      if (ranks[fid] !== undefined) {
        const t = add("text", { x, y, class: "rank" + (g.colours[Number(who.slice(1))] === "yellow" || g.colours[Number(who.slice(1))] === "white" ? " dark" : ""),
          "data-rank": String(ranks[fid]) }, grp);
        t.textContent = this.t(["rank_0", "rank_1", "rank_2", "rank_3"][ranks[fid]]);
      }
      if (this.selected === fid) p.classList.add("sel");
      grp.onclick = (e) => { e.stopPropagation(); this.clickField(fid); };
      grp.onpointerdown = (e) => { if (e.pointerType === "mouse") this.drag = fid; };
      const from = moved[fid];
      if (from && !reducedMotion() && g.centres[from] && grp.animate) {  // a short glide from where it stood
        const [fx, fy] = g.centres[from];
        grp.animate([{ transform: `translate(${fx - x}px, ${fy - y}px)` }, { transform: "translate(0, 0)" }],
          { duration: 350, easing: "ease-out" });
        this.glides = (this.glides || 0) + 1;  // counted, so a test can tell an animation ran
      }
    }
    this.prevBoard = Object.assign({}, s.board || {});
    if (s.position.disc !== undefined && s.position.disc !== null && g.disc_radius) {
      // the disc's orientation: a notch that turns a quarter per disc turn
      const a = (s.position.disc * Math.PI) / 2 - Math.PI / 2, r = g.disc_radius - 6;
      const nx = Math.cos(a) * r, ny = Math.sin(a) * r;
      add("path", { d: `M${nx} ${ny} L${Math.cos(a - 0.18) * (r - 14)} ${Math.sin(a - 0.18) * (r - 14)} L${Math.cos(a + 0.18) * (r - 14)} ${Math.sin(a + 0.18) * (r - 14)} Z`,
        class: "discmark", "data-disc": String(s.position.disc) });
    }
    if (this.selected && g.centres[this.selected]) {
      const [x, y] = g.centres[this.selected];
      add("circle", { cx: x, cy: y, r: fr + 7, class: "selring" });
    }
    this.drawFieldLabel(add);
    const [dx, dy] = g.discard.centre, [dw, dh] = g.discard.size;
    if (s.card) {
      add("rect", { x: dx - dw / 2, y: dy - dh / 2, width: dw, height: dh, rx: 7, class: "discard" });
      const t = add("text", { x: dx, y: dy, class: "cardtext", "font-size": s.card.length > 3 ? 14 : 26 });
      t.textContent = CARD_LABEL[s.card] ? `${CARD_LABEL[s.card]}` : s.card;
      if (s.card === "copy") {  // two overlapping cards: no font needed
        t.textContent = "";
        add("rect", { x: dx - 11, y: dy - 11, width: 15, height: 15, rx: 2, class: "copyrect" });
        add("rect", { x: dx - 4, y: dy - 4, width: 15, height: 15, rx: 2, class: "copyrect" });
      }
      if (CARD_LABEL[s.card] || s.card === "copy") { const t2 = add("text", { x: dx, y: dy + 24, class: "cardtext", "font-size": 11 }); t2.textContent = this.cardName(s.card); }
    } else {
      add("rect", { x: dx - dw / 2, y: dy - dh / 2, width: dw, height: dh, rx: 7, class: "discard-empty" });
    }
  }

  // a tapped field's name, above it: the name the referee's reasons use ("T41"), and what it is
  drawFieldLabel(add) {
    const fid = this.fieldLabel, g = this.geo, svg = this.el("board");
    if (!fid || !g.centres[fid]) return;
    const [x, y] = g.centres[fid];
    const box = (svg.getAttribute("viewBox") || "0 0 400 400").split(" ").map(Number);
    const px = svg.getBoundingClientRect().width || 360;
    const unit = box[2] / px;  // board units per screen pixel: the label is 14 px whatever the zoom
    const text = this.fieldName(fid), fs = 14 * unit, w = (text.length * 7.6 + 14) * unit, h = 24 * unit;
    const lx = Math.max(box[0] + 2 * unit, Math.min(box[0] + box[2] - w - 2 * unit, x - w / 2));
    const ly = Math.max(box[1] + 2 * unit, y - g.field_radius - h - 4 * unit);
    const grp = add("g", { class: "fieldlabel", "data-fieldlabel": fid });
    add("rect", { x: lx, y: ly, width: w, height: h, rx: 6 * unit }, grp);
    const t = add("text", { x: lx + w / 2, y: ly + h / 2, "font-size": fs }, grp);
    t.textContent = text;
  }

  fieldName(fid) {
    const g = this.geo, m = /^S(\d+)([HK])(\d+)$/.exec(fid);
    if (m) {
      const p = this.colourName(Number(m[1]));
      return m[2] === "K" ? this.t("field_kennel", { p }) : this.t("field_home", { p, n: Number(m[3]) + 1 });
    }
    const start = g.start_fields.indexOf(fid);
    return start >= 0 ? this.t("field_start", { f: fid, p: this.colourName(start) }) : this.t("field_track", { f: fid });
  }

  // centred on the part of the board that matters now (lit fields, the selection, the seat's
  // start and kennel), as big as lets a field be 40 px wide, so a finger hits it on a phone
  zoomBox(half) {
    const s = this.state, g = this.geo, svg = this.el("board");
    const seat = s.card_seat !== null && s.card_seat !== undefined ? s.card_seat : (s.viewer !== null && s.viewer !== undefined ? s.viewer : s.turn);
    const fids = Object.keys(s.leds || {});
    if (this.selected) fids.push(this.selected);
    if (!fids.length) fids.push(g.start_fields[seat], `S${seat}K0`, `S${seat}K3`);
    const pts = fids.filter((f) => g.centres[f]).map((f) => g.centres[f]);
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
    const px = svg.getBoundingClientRect().width || 360;
    const most = (px * 2 * g.field_radius) / 40;  // a field 2r wide shows as 40 px at this size
    const size = Math.min(most, 2 * half);  // as much board around it as 40 px fields allow
    const clamp = (v) => Math.max(-half, Math.min(half - size, v - size / 2));
    return `${clamp(cx)} ${clamp(cy)} ${size} ${size}`;
  }

  // royal: which piece is the king, knight, citizen, fool (the position lists them in that order)
  rankMarks() {
    const s = this.state; const out = {};
    if (s.variant !== "royal") return out;
    s.position.pieces.forEach((locs, seat) => {
      if (!locs) return;
      let k = 0;
      const kennel = Object.keys(s.board).filter((f) => f.startsWith(`S${seat}K`)).sort();
      locs.forEach((loc, rank) => {
        let fid = loc;
        if (loc === "K") fid = kennel[k++];
        else if (loc.startsWith("H")) fid = `S${seat}${loc}`;
        if (fid && s.board[fid] === `s${seat}`) out[fid] = rank;
      });
    });
    return out;
  }

  // for the play animation: each field newly taken, and the field its owner left
  movedFrom(board) {
    const out = {}; const prev = this.prevBoard;
    if (!prev) return out;
    const left = Object.keys(prev).filter((f) => board[f] !== prev[f]);
    for (const [fid, who] of Object.entries(board)) {
      if (prev[fid] === who) continue;
      const i = left.findIndex((f) => prev[f] === who);
      if (i >= 0) { out[fid] = left[i]; left.splice(i, 1); }
    }
    return out;
  }

  dragEnd(e) {
    const from = this.drag; this.drag = null;
    if (!from) return;
    const hit = document.elementFromPoint(e.clientX, e.clientY);
    const to = hit && (hit.dataset.field || hit.dataset.piece || hit.dataset.at);
    if (to && to !== from && this.state.paired) { this.selected = null; this.post("move", { from, to }); }
  }

  clickField(fid) {
    const s = this.state;
    this.fieldLabel = fid; clearTimeout(this.fieldTimer);  // every tap names the field, paired or not
    this.fieldTimer = setTimeout(() => { this.fieldLabel = null; this.drawBoard(); }, FIELD_LABEL_MS);
    if (!s.paired) { this.drawBoard(); this.toast(this.t("pair_prompt")); return; }
    const occupied = s.board && s.board[fid];
    if (!this.selected) {
      if (occupied) this.selected = fid;
      this.drawBoard();
      return;
    }
    if (this.selected === fid) { this.selected = null; this.drawBoard(); return; }
    const from = this.selected; this.selected = null; this.drawBoard();
    this.post("move", { from, to: fid });
  }
}

window.addEventListener("DOMContentLoaded", () => { window.dogtable = new App(); window.dogtable.start(); });
