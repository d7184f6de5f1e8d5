// The durak table: vanilla JavaScript over the server's JSON API (durak/web/server.py).
// The page keeps the game's id in sessionStorage, so a reload reconnects to its game.
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 100;
let view = null;
let polling = false;
let agents = [];

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) throw new Error(data.detail || response.statusText);
  return data;
}

function cardElement(text, trump) {
  const span = document.createElement("span");
  span.className = "card" + (/[♥♦]/.test(text) ? " red" : "") + (trump ? " trump" : "");
  span.textContent = text;
  span.dataset.card = text;
  return span;
}

function isTrump(text) {
  return view && view.trump.suit !== null && text.endsWith(view.trump.suit);
}

// --- set-up ---------------------------------------------------------------------------

function drawSetup() {
  const players = Number($("players").value);
  const seat = $("seat");
  const chosen = Math.min(Number(seat.value || 0), players - 1);
  seat.replaceChildren(...Array.from({ length: players }, (_, i) => new Option(String(i), String(i))));
  seat.value = String(chosen);
  const box = $("opponents");
  const old = Array.from(box.querySelectorAll("input")).map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < players - 1; i++) {
    const label = document.createElement("label");
    label.textContent = `Opponent ${i + 1} `;
    const input = document.createElement("input");
    input.name = "opponent";
    input.className = "opponent";
    input.setAttribute("list", "agent-names");
    input.value = old[i] || "strongest";  // the network-guided search where it fits the rules
    input.required = true;
    label.append(input);
    box.append(label);
  }
}

async function loadAgents() {
  agents = await api("GET", "/api/agents");
  $("agent-names").replaceChildren(
    ...agents.map((a) => { const o = new Option(a.description, a.name); o.value = a.name; return o; }),
  );
}

async function startGame(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const numberOrNull = (id) => ($(id).value === "" ? null : Number($(id).value));
  const request = {
    opponents: Array.from(document.querySelectorAll(".opponent")).map((i) => i.value.trim()),
    seat: Number($("seat").value),
    variant: $("variant").value,
    deck: Number($("deck").value),
    throw_in: $("throw_in").value,
    bout_cap: Number($("bout_cap").value),
    first_bout_cap: numberOrNull("first_bout_cap"),
    seed: numberOrNull("seed"),
  };
  try {
    show(await api("POST", "/api/games", request));
  } catch (e) {
    $("setup-error").textContent = e.message;
  }
}

// --- the table ------------------------------------------------------------------------

function show(next) {
  view = next;
  sessionStorage.setItem("durak-game", view.game);
  $("setup").hidden = true;
  $("game").hidden = false;
  $("game-error").textContent = "";
  drawTable();
  if (view.over) stopPolling(); else startPolling();
}

function drawTable() {
  const v = view;
  $("seats").replaceChildren(...v.seats.map((s) => {
    const div = document.createElement("div");
    div.className = "seat" + (s.seat === v.turn ? " turn" : "") + (s.you ? " you" : "");
    div.dataset.seat = String(s.seat);
    const who = s.you ? "you" : s.name;
    const role = s.role ? ` · ${s.role}` : "";
    const thinking = !s.you && s.seat === v.turn && v.thinking ? " · thinking…" : "";
    div.append(`${who} (seat ${s.seat}) · ${s.cards} cards${s.out ? " · out" : ""}${role}${thinking}`);
    if (s.known.length) {
      const known = document.createElement("div");
      known.append("known: ", ...s.known.map((c) => cardElement(c, isTrump(c))));
      div.append(known);
    }
    return div;
  }));
  $("trump").textContent = v.trump.card ? `trump ${v.trump.card}` : v.trump.suit ? `trump ${v.trump.suit}` : "no trumps";
  $("talon").textContent = `talon ${v.talon}`;
  $("discard").textContent = `discard ${v.discard}`;
  $("table").replaceChildren(...v.table.map((p) => {
    const div = document.createElement("div");
    div.className = "pair";
    div.append(cardElement(p.attack, isTrump(p.attack)));
    if (p.defence) div.append(cardElement(p.defence, isTrump(p.defence)));
    return div;
  }));
  $("hand").replaceChildren(...v.hand.map((h) => {
    const el = cardElement(h.card, h.trump);
    const uses = v.actions.filter((a) => a.cards.includes(h.card));
    if (uses.length) el.classList.add("playable");
    el.addEventListener("click", () => { if (uses.length === 1) act(uses[0].text); });
    return el;
  }));
  $("actions").replaceChildren(...v.actions.map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.text;
    b.textContent = `${a.key <= 9 ? a.key + ". " : ""}${a.text}`;
    b.addEventListener("click", () => act(a.text));
    return b;
  }));
  $("history").replaceChildren(...v.history.slice().reverse().map((m) => {
    const li = document.createElement("li");
    li.textContent = `${m.seat === v.you ? "you" : m.name + " (seat " + m.seat + ")"}: ${m.action}`;
    return li;
  }));
  const status = v.over ? "game over" : v.thinking ? `seat ${v.turn} is thinking…` : "your turn";
  $("status").textContent = status;
  $("result").hidden = !v.over;
  if (v.over && v.result) {
    const r = v.result;
    const text = r.draw ? "A draw: nobody is the durak." :
      r.durak === v.you ? "You are the durak." : `The durak is seat ${r.durak} (${v.seats[r.durak].name}).`;
    $("result-text").textContent = `${text}${r.forfeit ? " (" + r.forfeit + ")" : ""} Seed ${r.seed}.`;
    $("result").dataset.durak = r.draw ? "draw" : String(r.durak);
  }
}

async function act(text) {
  if (!view || view.over) return;
  try {
    show(await api("POST", `/api/games/${view.game}/actions`, { action: text, version: view.version }));
  } catch (e) {
    $("game-error").textContent = e.message;
    await refresh();
  }
}

async function refresh() {
  const id = sessionStorage.getItem("durak-game");
  if (!id) return;
  try {
    const after = view && view.game === id ? `?after=${view.version}` : "";
    const next = await api("GET", `/api/games/${id}${after}`);
    if (!view || next.version !== view.version || next.game !== view.game) show(next);
  } catch (e) {
    stopPolling();
    sessionStorage.removeItem("durak-game");
    $("game").hidden = true;
    $("setup").hidden = false;
    $("setup-error").textContent = e.message;
  }
}

// One long poll at a time: the server answers when the table changes (or after a while).
async function pollLoop() {
  while (polling) {
    await refresh();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
function startPolling() { if (!polling) { polling = true; pollLoop(); } }
function stopPolling() { polling = false; }

async function newTable(path) {
  try { show(await api("POST", `/api/games/${view.game}/${path}`)); }
  catch (e) { $("game-error").textContent = e.message; }
}

document.addEventListener("keydown", (event) => {
  if (!view || view.over || event.target.tagName === "INPUT") return;
  const key = Number(event.key);
  const action = view.actions.find((a) => a.key === key);
  if (action) act(action.text);
});

$("players").addEventListener("change", drawSetup);
$("new-game").addEventListener("submit", startGame);
$("rematch").addEventListener("click", () => newTable("rematch"));
$("next").addEventListener("click", () => newTable("next"));
$("setup-again").addEventListener("click", () => {
  stopPolling();
  sessionStorage.removeItem("durak-game");
  view = null;
  $("game").hidden = true;
  $("setup").hidden = false;
});

drawSetup();
loadAgents().catch((e) => { $("setup-error").textContent = e.message; });
refresh();
