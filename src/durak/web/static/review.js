// The review of a finished game (durak/web/reviews.py): starts it, shows its progress,
// then steps through the person's decisions, each with the position they saw, what they
// played, what the analysing agent preferred and the value lost, and lists the largest
// mistakes first.  The position is drawn by board.js, as on the table.
"use strict";

const $ = (id) => document.getElementById(id);
const POLL_MS = 250;
const MOVES_SHOWN = 12;
const game = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let review = null;
let index = 0;

async function api(method, path) {
  const response = await fetch(path, { method });
  const data = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) throw new Error(data.detail || response.statusText);
  return data;
}

function showProgress(state) {
  const total = Math.max(state.total, 1);
  $("progress").max = total;
  $("progress").value = state.done;
  $("progress-text").textContent = `${state.done} of ${state.total} decisions`;
}

async function load() {
  try {
    let state = await api("POST", `/api/games/${encodeURIComponent(game)}/review`);
    while (state.state === "running") {
      showProgress(state);
      await new Promise((r) => setTimeout(r, POLL_MS));
      state = await api("GET", `/api/games/${encodeURIComponent(game)}/review`);
    }
    if (state.state === "failed") throw new Error(`the review failed: ${state.detail}`);
    showProgress(state);
    $("progress-box").hidden = true;
    review = state.review;
    start();
  } catch (e) {
    $("progress-box").hidden = true;
    $("review-error").textContent = e.message;
    $("status").textContent = "no review";
  }
}

// --- drawing --------------------------------------------------------------------------

function who(seat) {
  return seat === review.seat ? "you" : `${review.names[seat]} (seat ${seat})`;
}

function drawPosition(p) {
  const you = p.seats.find((s) => s.you);
  drawSeats({ ...p, turn: you ? you.seat : -1 }); // the person was to act
  drawDeck(p);
  $("table").replaceChildren(...p.table.map((pair) => {
    const div = document.createElement("div");
    div.className = "pair";
    div.append(cardNode(pair.attack, p));
    if (pair.defence) div.append(cardNode(pair.defence, p));
    return div;
  }));
  $("hand").replaceChildren(...p.hand.map((h) => cardNode(h.card, p)));
}

function value(v) {
  return v === null ? "not valued" : (v >= 0 ? "+" : "") + v.toFixed(3);
}

function drawVerdict(d) {
  const verdict = $("verdict");
  verdict.dataset.played = d.played;
  verdict.dataset.chosen = d.chosen;
  verdict.dataset.loss = d.loss === null ? "" : String(d.loss);
  const span = (text, cls) => { const s = document.createElement("span"); s.className = cls; s.textContent = text; return s; };
  if (d.forced) {
    verdict.replaceChildren(`You played ${d.played}: the only legal action.`);
  } else if (d.played === d.chosen) {
    verdict.replaceChildren(`You played ${d.played} (value ${value(d.played_value)}); `, span(`the analyst agrees: nothing lost.`, "kept"));
  } else {
    const lost = d.loss === null ? "value lost unknown (an action the analyst did not value)" : `value lost ${d.loss.toFixed(3)}`;
    verdict.replaceChildren(`You played ${d.played} (value ${value(d.played_value)}); the analyst preferred ${d.chosen} (value ${value(d.chosen_value)}): `, span(lost, "lost"));
  }
  $("assessments").querySelector("tbody").replaceChildren(...d.actions.map((a) => {
    const tr = document.createElement("tr");
    if (a.action === d.played) tr.classList.add("played");
    if (a.action === d.chosen) tr.classList.add("chosen");
    for (const text of [a.action, value(a.value), a.visits === null ? "-" : String(a.visits)]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $("assessments").hidden = d.actions.length === 0;
}

function draw() {
  const d = review.decisions[index];
  const where = $("where");
  where.textContent = `decision ${index + 1} of ${review.decisions.length} · move ${d.step}`;
  where.dataset.step = String(d.step);
  $("prev").disabled = index === 0;
  $("next").disabled = index === review.decisions.length - 1;
  drawPosition(d.position);
  drawVerdict(d);
  const first = Math.max(0, d.step - 1 - MOVES_SHOWN);
  const before = review.moves.slice(first, d.step - 1);
  $("before").start = first + 1;  // numbered as the game's moves
  $("before").replaceChildren(...before.map((m) => {
    const li = document.createElement("li");
    li.textContent = `${who(m.seat)}: ${m.action}`;
    return li;
  }));
  $("status").textContent = `move ${d.step}`;
}

function go(to) {
  if (!review || review.decisions.length === 0) return;
  index = Math.max(0, Math.min(review.decisions.length - 1, to));
  draw();
}

function start() {
  const r = review;
  const result = r.result.draw ? "a draw" : r.result.durak === r.seat ? "you were the durak" : `the durak was ${who(r.result.durak)}`;
  const lost = r.mistakes.length;
  $("summary").textContent = `${r.decisions.length} decisions of yours reviewed by ${r.analyst}: ${lost} lost value (${r.total_loss.toFixed(3)} in all); ${result}.`;
  const byStep = new Map(r.decisions.map((d, i) => [d.step, i]));
  $("mistakes").replaceChildren(...r.mistakes.map((step) => {
    const d = r.decisions[byStep.get(step)];
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.step = String(step);
    b.textContent = `move ${step}: ${d.played} instead of ${d.chosen}, lost ${d.loss.toFixed(3)}`;
    b.addEventListener("click", () => { go(byStep.get(step)); $("verdict").focus(); });
    li.append(b);
    return li;
  }));
  if (!r.mistakes.length) $("mistakes").replaceChildren(Object.assign(document.createElement("li"), { textContent: "none: every decision kept the analyst's value" }));
  $("review").hidden = false;
  if (r.decisions.length === 0) {
    $("steps").hidden = true;
    $("decision").hidden = true;
    $("status").textContent = "you had no decision to make";
    return;
  }
  go(0);
}

$("prev").addEventListener("click", () => go(index - 1));
$("next").addEventListener("click", () => go(index + 1));
document.addEventListener("keydown", (event) => {
  if (!review || event.altKey || event.ctrlKey || event.metaKey) return;
  const moves = { ArrowLeft: index - 1, p: index - 1, ArrowRight: index + 1, n: index + 1, Home: 0, End: Infinity };
  if (event.key in moves) {
    event.preventDefault();
    go(moves[event.key]);
  }
});

load();
