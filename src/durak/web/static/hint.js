// The hint (durak/web/hints.py): the Hint button (or the H key) asks the server what the
// strongest agent thinks of the person's decision; the panel lists every legal action
// with its value and visit share, and the suggested one is marked there and among the
// action buttons (by a star and its label, not by colour alone).
"use strict";

let hint = null; // the hint of the view shown, or null
let hinting = false;

function hintFits() {
  return hint && view && hint.game === view.game && hint.version === view.version;
}

function percent(share) {
  return share === null ? "" : `${Math.round(share * 100)}% of the search`;
}

function valueText(value) {
  return value === null ? "not valued" : `value ${value >= 0 ? "+" : ""}${value.toFixed(2)}`;
}

async function askHint() {
  if (!view || view.over || !view.hints || !view.actions.length || hinting) return;
  hinting = true;
  const button = $("hint");
  const panel = $("hint-panel");
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  panel.hidden = false;
  panel.replaceChildren(caption("thinking…", "hint-wait"));
  try {
    const answer = await api("POST", `/api/games/${view.game}/hint`);
    hint = answer;
  } catch (e) {
    hint = null;
    $("game-error").textContent = e.message;
  } finally {
    hinting = false;
    button.removeAttribute("aria-busy");
  }
  drawHint();
  const mark = document.querySelector("#hint-panel .suggested");
  if (mark) mark.focus();
}

// Called after every redraw of the table: the hint shows while its view does.
function drawHint() {
  const box = $("hint-box");
  const button = $("hint");
  const panel = $("hint-panel");
  box.hidden = !view || view.over || !view.hints;
  button.disabled = hinting || !view || !view.actions.length;
  if (!hintFits()) {
    if (!hinting) { hint = null; panel.hidden = true; panel.replaceChildren(); }
    return;
  }
  panel.hidden = false;
  const title = document.createElement("p");
  title.className = "hint-title";
  title.append("Suggested: ", caption(`★ ${hint.suggested}`, "hint-pick"), ` (${hint.agent})`);
  const list = document.createElement("ol");
  list.className = "hint-list";
  list.setAttribute("aria-label", "every legal action as the agent sees it");
  for (const a of hint.actions) {
    const li = document.createElement("li");
    li.value = a.key;
    const parts = [valueText(a.value), percent(a.share)].filter(Boolean).join(", ");
    li.textContent = `${a.suggested ? "★ " : ""}${a.text}: ${parts}${a.suggested ? " (suggested)" : ""}`;
    if (a.suggested) {
      li.className = "suggested";
      li.tabIndex = -1;
    }
    list.append(li);
  }
  const note = document.createElement("p");
  note.className = "hint-note";
  note.textContent = "Value: your expected result as the agent estimates it (-1: you are the durak; above 0: you win).";
  panel.replaceChildren(title, list, note);
  for (const b of document.querySelectorAll("#actions button")) {
    const chosen = b.dataset.action === hint.suggested;
    b.classList.toggle("suggested", chosen);
    if (chosen) b.setAttribute("aria-label", `${b.textContent} (suggested by the hint)`);
  }
}

// Loaded before app.js (which defines $): the button is found by its id here.
document.getElementById("hint").addEventListener("click", askHint);
