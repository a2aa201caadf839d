// dogtable club screen: every table's game, live from the broker, drawn from api/club (a long poll).
// Every URL is relative: the page works at "/" (dogtable club) and mounted at "/club/" on a table.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
const COLOURS = { red: "#d83a34", blue: "#2f6fd6", green: "#2f9e44", yellow: "#f2c200", white: "#f4f4f4",
  black: "#2a2a2a", orange: "#f08c00", purple: "#8e44ad" };
const RETRY_MS = 3000;  // the club server itself unreachable: try again this often
const PRESENCE_WORDS = { online: "online", paused: "paused", lost: "lost", offline: "offline" };

const club = { texts: {}, lang: "en", since: -1, data: null };

function t(key, args) {
  const s = club.texts[key];
  if (s === undefined) return null;
  return s.replace(/\{(\w+)\}/g, (_, k) => (args && k in args ? args[k] : "{" + k + "}"));
}
function colourName(c) { return t(c) || c.charAt(0).toUpperCase() + c.slice(1); }
function node(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
}
function dot(colour) { const d = node("span", "dot"); d.style.background = COLOURS[colour] || "#999"; return d; }

async function loadTexts() {
  const want = (new URLSearchParams(location.search).get("lang") || navigator.language || "en").slice(0, 2).toLowerCase();
  for (const lang of [want, "en"]) {
    try {
      const r = await fetch("texts/" + lang + ".json", { cache: "no-cache" });
      if (r.ok) { club.texts = await r.json(); club.lang = lang; document.documentElement.lang = lang; return; }
    } catch (e) { /* the words fall back to English below */ }
  }
}

function drawBoard(game, geo) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("class", "board");
  svg.setAttribute("role", "img");
  const add = (tag, attrs) => {
    const n = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    svg.appendChild(n); return n;
  };
  const pts = Object.values(geo.centres);
  const half = Math.max(...pts.map(([x, y]) => Math.max(Math.abs(x), Math.abs(y)))) + geo.field_radius + 6;
  svg.setAttribute("viewBox", `${-half} ${-half} ${2 * half} ${2 * half}`);
  add("rect", { x: -half + 1, y: -half + 1, width: 2 * half - 2, height: 2 * half - 2, rx: 24, class: "base" });
  const colourOf = {};
  for (const s of game.seats) colourOf[s.seat] = s.colour;
  const fr = geo.field_radius;
  for (const [fid, [x, y]] of Object.entries(geo.centres)) {
    const m = /^S(\d+)([HK])(\d+)$/.exec(fid);
    if (m && (!(Number(m[1]) in colourOf) || (m[2] === "H" && Number(m[3]) >= game.home_slots))) continue;
    const c = add("circle", { cx: x, cy: y, r: fr * 0.8, class: "f" });
    if (m) {
      c.style.stroke = COLOURS[colourOf[Number(m[1])]];
      if (m[2] === "H") { c.style.fill = COLOURS[colourOf[Number(m[1])]]; c.style.fillOpacity = "0.3"; }
    }
  }
  let pieces = 0;
  for (const [fid, who] of Object.entries(game.board)) {
    const at = geo.centres[fid];
    if (!at) continue;
    const colour = who === "dog" ? "#111" : COLOURS[colourOf[Number(who.slice(1))]];
    add("circle", { cx: at[0], cy: at[1], r: fr * 0.72, class: "pc", fill: colour, "data-piece": fid });
    pieces += 1;
  }
  svg.setAttribute("aria-label", `${game.title}: ${pieces} pieces`);
  return svg;
}

function turnWords(game) {
  if (game.phase === "over" && game.winner) {
    const who = game.winner.map(colourName).join(" & ");
    return t("over", { p: who }) || `Game over: ${who} won`;
  }
  if (game.phase === "exchange") return t("exchange") || "Exchange: each player gives one card";
  if (game.phase === "setup") return "Setting up the board";
  const p = colourName(game.turn_colour);
  return t("turn_of", { p }) || `${p} to play`;
}

function tableItem(tb) {
  const li = node("li");
  li.dataset.table = tb.table;
  li.dataset.presence = tb.presence;
  for (const c of tb.colours || []) li.appendChild(dot(c));
  li.appendChild(node("span", "tname", tb.table));
  li.appendChild(node("span", "badge " + tb.presence, PRESENCE_WORDS[tb.presence] || tb.presence));
  return li;
}

function gameCard(game, geo) {
  const card = node("article", "game");
  card.dataset.game = game.game;
  card.dataset.seq = String(game.seq);
  const h = node("h2", "", `${game.game}'s game`);
  h.appendChild(node("span", "variant", `${game.title} · round ${game.round}`));
  card.appendChild(h);
  if (geo) card.appendChild(drawBoard(game, geo));
  const turn = node("div", "turn");
  turn.dataset.turn = game.phase === "play" ? game.turn_colour : game.phase;
  if (game.phase === "play") turn.appendChild(dot(game.turn_colour));
  turn.appendChild(node("span", "", turnWords(game)));
  card.appendChild(turn);
  const v = game.verdict;
  const words = v ? (v.reason[club.lang] || v.reason.en || Object.values(v.reason)[0] || "") : "";
  const verdict = node("p", "verdict" + (v && !v.legal ? " bad" : ""), words);
  verdict.dataset.verdict = words;
  card.appendChild(verdict);
  const ul = node("ul", "tablelist");
  for (const tb of game.tables) ul.appendChild(tableItem(tb));
  card.appendChild(ul);
  return card;
}

function render(data) {
  club.data = data;
  const problem = document.getElementById("problem");
  if (!data.connected) {
    problem.textContent = (data.error || `connecting to the broker at ${data.broker}…`) + " — retrying by itself";
    problem.hidden = false;
  } else {
    problem.hidden = true;
  }
  const games = document.getElementById("games");
  games.replaceChildren(...data.games.map((g) => gameCard(g, data.geometry[String(g.segments)])));
  const online = new Set();
  for (const g of data.games) for (const tb of g.tables) if (tb.presence === "online") online.add(tb.table);
  for (const tb of data.tables) if (tb.presence === "online") online.add(tb.table);
  document.getElementById("summary").textContent =
    `${data.games.length} game${data.games.length === 1 ? "" : "s"} · ${online.size} table${online.size === 1 ? "" : "s"} online`;
  document.getElementById("empty").hidden = data.games.length > 0;
  document.getElementById("idle").hidden = data.tables.length === 0;
  document.getElementById("idletables").replaceChildren(...data.tables.map(tableItem));
  document.body.dataset.version = String(data.version);
}

async function follow() {
  for (;;) {
    try {
      const r = await fetch("api/club?since=" + club.since, { cache: "no-store" });
      if (!r.ok) throw new Error("HTTP " + r.status);
      const data = await r.json();
      const fresh = data.version !== club.since;
      club.since = data.version;
      if (fresh) render(data);
      // no news: the wait ran out, or the server holds too many waits and answered at once
      else await new Promise((ok) => setTimeout(ok, 2000));
    } catch (e) {
      club.since = -1;  // whatever the server has when it answers again is news
      const problem = document.getElementById("problem");
      problem.textContent = `cannot reach the club screen's server: ${e.message || e} — retrying by itself`;
      problem.hidden = false;
      await new Promise((ok) => setTimeout(ok, RETRY_MS));
    }
  }
}

loadTexts().then(follow);
