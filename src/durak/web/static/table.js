// Draws the table view (durak/web/views.py) with board.js's seats, deck and cards, and
// turns a click on a hand card into an action: one legal use plays it; several (beat one
// of two attack cards, or beat versus transfer) mark the targets and a second click
// chooses.
"use strict";

let selected = null; // the hand card whose targets are shown, or null

function usesOf(card) {
  return view.actions.filter((a) => a.cards.includes(card));
}

// The attack card a Defend action beats ("Defend(6♠<-8♠)" beats 6♠), else null.
function beaten(actionText) {
  const m = /^Defend\((.+)<-(.+)\)$/.exec(actionText);
  return m ? m[1] : null;
}

function choose(card) {
  const uses = usesOf(card);
  if (uses.length === 1) {
    act(uses[0].text);
  } else if (uses.length > 1) {
    selected = selected === card ? null : card;
    drawTable();
    const first = selected && document.querySelector("#game .target");
    (first || document.querySelector(`#hand [data-card="${card}"]`)).focus();
  }
}

function cancelChoice() {
  if (selected === null) return;
  const card = selected;
  selected = null;
  drawTable();
  const el = document.querySelector(`#hand [data-card="${card}"]`);
  if (el) el.focus();
}

function drawMiddle(v) {
  const uses = selected ? usesOf(selected) : [];
  const pairs = v.table.map((p) => {
    const div = document.createElement("div");
    div.className = "pair";
    const use = uses.find((a) => beaten(a.text) === p.attack && !p.defence);
    div.append(use
      ? cardNode(p.attack, v, {
        classes: ["target"], onClick: () => act(use.text),
        label: `beat ${cardName(p.attack, isTrump(p.attack, v))} with ${cardName(selected, isTrump(selected, v))}`,
      })
      : cardNode(p.attack, v));
    if (use) div.lastChild.dataset.action = use.text;
    if (p.defence) div.append(cardNode(p.defence, v));
    return div;
  });
  const others = uses.filter((a) => beaten(a.text) === null).map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "target play-target";
    b.dataset.action = a.text;
    b.textContent = `${a.text.split("(")[0]} with ${selected}`;
    b.setAttribute("aria-label", `${a.text.split("(")[0].toLowerCase()} with ${cardName(selected, isTrump(selected, v))}`);
    b.addEventListener("click", () => act(a.text));
    return b;
  });
  const cancel = [];
  if (selected) {
    const b = document.createElement("button");
    b.type = "button";
    b.id = "cancel-choice";
    b.textContent = "Cancel (Esc)";
    b.addEventListener("click", cancelChoice);
    cancel.push(b);
  }
  $("table").replaceChildren(...pairs, ...others, ...cancel);
}

function drawHand(v) {
  $("hand").replaceChildren(...v.hand.map((h) => {
    const playable = usesOf(h.card).length > 0;
    const classes = [playable ? "playable" : "idle"];
    if (h.card === selected) classes.push("selected");
    const el = cardNode(h.card, v, playable ? { classes, onClick: () => choose(h.card) } : { classes });
    if (h.card === selected) el.setAttribute("aria-pressed", "true");
    return el;
  }));
}

function drawActions(v) {
  $("actions").replaceChildren(...v.actions.map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.text;
    b.textContent = `${a.key <= 9 ? a.key + ". " : ""}${a.text}`;
    b.addEventListener("click", () => act(a.text));
    return b;
  }));
}

function drawTable() {
  const v = view;
  if (selected && !usesOf(selected).length) selected = null;
  const hadFocus = document.activeElement;
  const focusKey = hadFocus && hadFocus.closest && hadFocus.closest("#game") ? (hadFocus.dataset.card || hadFocus.dataset.action) : null;
  drawSeats(v, v.thinking);
  drawDeck(v);
  drawMiddle(v);
  drawHand(v);
  drawActions(v);
  $("history").replaceChildren(...v.history.slice().reverse().map((m) => {
    const li = document.createElement("li");
    li.textContent = `${m.seat === v.you ? "you" : m.name + " (seat " + m.seat + ")"}: ${m.action}`;
    return li;
  }));
  const status = v.over ? "game over" : v.thinking ? `seat ${v.turn} is thinking…` :
    selected ? `choose where to play ${selected}: a marked card or button (Esc cancels)` : "your turn";
  $("status").textContent = status;
  // A redraw replaces the controls: give the focus back to the same card or action.
  if (focusKey && !document.activeElement.closest("#game")) {
    const again = document.querySelector(`#game [data-card="${focusKey}"], #game [data-action="${focusKey}"]`)
      || document.querySelector("#hand button.card");
    if (again) again.focus();
  }
  $("result").hidden = !v.over;
  if (v.over && v.result) {
    const r = v.result;
    const text = r.draw ? "A draw: nobody is the durak." :
      r.durak === v.you ? "You are the durak." : `The durak is seat ${r.durak} (${v.seats[r.durak].name}).`;
    $("result-text").textContent = `${text}${r.forfeit ? " (" + r.forfeit + ")" : ""} Seed ${r.seed}.`;
    $("result").dataset.durak = r.draw ? "draw" : String(r.durak);
    $("review-link").href = `/review/${encodeURIComponent(v.game)}`;
  }
  drawHint(); // hint.js: the hint of this view, if one was asked
}
