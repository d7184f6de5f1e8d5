// The durak table: vanilla JavaScript over the server's JSON API (durak/web/server.py);
// cards.js draws the cards and table.js the table.  The page keeps the game's id in
// sessionStorage, so a reload reconnects to its game.
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
  drawAgentNames();
}

// The learned agents at the table the form describes (POST /api/learned): listed first
// where a shipped network fits the rules; where none does, the learned agent is left out
// of the list and the page says why.
let learned = { fits: false, agents: [], refused: [], note: "" };
let learnedAsked = 0;

function drawAgentNames() {
  const first = agents.filter((a) => learned.agents.includes(a.name));
  const rest = agents.filter((a) => !learned.agents.includes(a.name) && !learned.refused.includes(a.name));
  $("agent-names").replaceChildren(
    ...[...first, ...rest].map((a) => { const o = new Option(a.description, a.name); o.value = a.name; return o; }),
  );
  $("learned-note").textContent = learned.note;
  $("learned-note").className = learned.fits ? "fits" : "none";
}

async function loadLearned() {
  const asked = ++learnedAsked;
  try {
    const answer = await api("POST", "/api/learned", tableRequest());
    if (asked !== learnedAsked) return;  // the form changed again meanwhile
    learned = answer;
  } catch (e) {
    if (asked !== learnedAsked) return;
    learned = { fits: false, agents: [], refused: [], note: e.message };
  }
  drawAgentNames();
}

function tableRequest() {
  const numberOrNull = (id) => ($(id).value === "" ? null : Number($(id).value));
  return {
    opponents: Array.from(document.querySelectorAll(".opponent")).map((i) => i.value.trim()),
    seat: Number($("seat").value),
    variant: $("variant").value,
    suits: Number($("suits").value),
    lowest_rank: Number($("lowest_rank").value),
    hand_size: Number($("hand_size").value),
    trumps: $("trumps").checked,
    throw_in: $("throw_in").value,
    bout_cap: Number($("bout_cap").value),
    first_bout_cap: numberOrNull("first_bout_cap"),
    seed: numberOrNull("seed"),
    hints: $("hints").checked,
  };
}

async function startGame(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  try {
    show(await api("POST", "/api/games", tableRequest()));
  } catch (e) {
    $("setup-error").textContent = e.message;
  }
}

// --- the table ------------------------------------------------------------------------

function show(next) {
  if (!view || next.game !== view.game || next.version !== view.version) selected = null;
  view = next;
  sessionStorage.setItem("durak-game", view.game);
  $("setup").hidden = true;
  $("game").hidden = false;
  $("game-error").textContent = "";
  drawTable();
  if (view.over) stopPolling(); else startPolling();
}

// While an action is on its way, polled views are not shown: the table changes its
// version as it accepts the action, and that view still lists the actions just used up.
// The action's answer, once it is played, is the next view.
let acting = false;

async function act(text) {
  if (!view || view.over || acting) return;
  acting = true;
  let next = null;
  try {
    next = await api("POST", `/api/games/${view.game}/actions`, { action: text, version: view.version });
  } catch (e) {
    $("game-error").textContent = e.message;
  } finally {
    acting = false;
  }
  if (next) show(next); else await refresh();
}

async function refresh() {
  const id = sessionStorage.getItem("durak-game");
  if (!id) return;
  try {
    const after = view && view.game === id ? `?after=${view.version}` : "";
    const next = await api("GET", `/api/games/${id}${after}`);
    // Versions only grow: an answer overtaken by the action's own is not shown.
    if (acting) return;
    if (!view || next.game !== view.game || next.version > view.version) show(next);
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
  if (event.key === "Escape") { cancelChoice(); return; }
  if (event.key === "h" || event.key === "H") { askHint(); return; }
  const key = Number(event.key);
  const action = view.actions.find((a) => a.key === key);
  if (action) act(action.text);
});

$("players").addEventListener("change", drawSetup);
for (const id of ["players", "variant", "suits", "lowest_rank", "hand_size", "trumps", "throw_in", "bout_cap", "first_bout_cap"]) {
  $(id).addEventListener("change", loadLearned);
}
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
loadAgents().then(loadLearned).catch((e) => { $("setup-error").textContent = e.message; });
refresh();
