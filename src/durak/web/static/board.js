// The parts of a position drawn the same on the table (table.js) and in a review
// (review.js), with the SVG cards of cards.js: a card as an element, a fan of backs, a
// caption, the seats, and the trump, talon and discard.  A position is a view of
// durak/web/views.py (or a review's position, which has the same fields).
"use strict";

function isTrump(text, position) {
  return position.trump.suit !== null && text.endsWith(position.trump.suit);
}

// A card of ``position``: a <button> when it does something, else an image; named for
// screen readers.
function cardNode(text, position, { label, onClick, classes = [] } = {}) {
  const trump = isTrump(text, position);
  const el = document.createElement(onClick ? "button" : "span");
  el.className = ["card", ...classes].join(" ");
  if (onClick) {
    el.type = "button";
    el.addEventListener("click", onClick);
  } else {
    el.setAttribute("role", "img");
  }
  el.setAttribute("aria-label", label || cardName(text, trump));
  el.dataset.card = text;
  el.append(cardFace(text, trump));
  return el;
}

function backsNode(count, label, classes = []) {
  const el = document.createElement("span");
  el.className = ["backs", ...classes].join(" ");
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", label);
  el.append(cardBacks(count));
  return el;
}

function caption(text, className) {
  const span = document.createElement("span");
  span.className = className;
  span.textContent = text;
  return span;
}

// The seats of ``position`` into #seats: each one's name, cards and role, the seat to act
// (``position.turn``) marked, and, ``thinking``, said to be thinking when not yours; the
// others' hidden cards as backs and the cards known to be in their hands.
function drawSeats(position, thinking = false) {
  const p = position;
  document.getElementById("seats").replaceChildren(...p.seats.map((s) => {
    const div = document.createElement("div");
    div.className = "seat" + (s.seat === p.turn ? " turn" : "") + (s.you ? " you" : "");
    div.dataset.seat = String(s.seat);
    const who = s.you ? "you" : s.name;
    const role = s.role ? ` · ${s.role}` : "";
    const wait = !s.you && s.seat === p.turn && thinking ? " · thinking…" : "";
    const turn = s.seat === p.turn ? "▶ " : "";
    div.append(caption(`${turn}${who} (seat ${s.seat}) · ${s.cards} cards${s.out ? " · out" : ""}${role}${wait}`, "seat-name"));
    if (!s.you && s.cards > 0) {
      const row = document.createElement("div");
      row.className = "seat-cards";
      row.append(backsNode(s.cards, `${s.cards} hidden cards`, ["mini"]));
      for (const c of s.known) row.append(cardNode(c, p, { classes: ["mini"], label: `known: ${cardName(c, isTrump(c, p))}` }));
      div.append(row);
    }
    return div;
  }));
}

// The trump card (or suit), the talon and the discard of ``position`` into #trump, #talon
// and #discard.
function drawDeck(position) {
  const p = position;
  const trump = document.getElementById("trump");
  if (p.trump.card) {
    trump.replaceChildren(caption("trump", "label"), cardNode(p.trump.card, p, { classes: ["small"], label: `trump card: ${cardName(p.trump.card, true)}` }));
  } else {
    trump.replaceChildren(caption(p.trump.suit ? `trump ${SUITS[p.trump.suit].name} ${p.trump.suit}` : "no trumps", "label"));
  }
  const talon = document.getElementById("talon");
  talon.replaceChildren(caption(`talon ${p.talon}`, "label"));
  if (p.talon > 0) talon.append(backsNode(1, `talon: ${p.talon} hidden cards`, ["small"]));
  document.getElementById("discard").replaceChildren(caption(`discard ${p.discard}`, "label"));
}
