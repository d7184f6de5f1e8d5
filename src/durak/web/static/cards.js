// Playing cards drawn as SVG by this page's own code (no images, no fonts for the suits):
// a face has the rank and suit in two corners, a large suit symbol (framed on a court
// card) and, on a trump, a star; a back has a lattice.  Suits differ by shape as well as
// colour, and every card carries its name for screen readers ("queen of hearts, trump");
// a back is only ever "hidden card".
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
// Each suit's outline in a 10×10 box, drawn here from curves and arcs.
const SUITS = {
  "♠": { name: "spades", red: false,
    path: "M5 0C8.6 2.6 10 4.6 10 6.2 10 7.9 8.8 8.9 7.4 8.9 6.6 8.9 5.9 8.5 5.5 7.9L6.3 10H3.7L4.5 7.9C4.1 8.5 3.4 8.9 2.6 8.9 1.2 8.9 0 7.9 0 6.2 0 4.6 1.4 2.6 5 0Z" },
  "♥": { name: "hearts", red: true,
    path: "M5 9.6C1.2 6.7 0 4.7 0 3 0 1.3 1.2 0 2.7 0 3.8 0 4.6 .7 5 1.7 5.4 .7 6.2 0 7.3 0 8.8 0 10 1.3 10 3 10 4.7 8.8 6.7 5 9.6Z" },
  "♦": { name: "diamonds", red: true, path: "M5 0L9 5 5 10 1 5Z" },
  "♣": { name: "clubs", red: false,
    path: "M5 .2A2.3 2.3 0 1 1 5 4.8 2.3 2.3 0 1 1 5 .2ZM2.5 3.9A2.3 2.3 0 1 1 2.5 8.5 2.3 2.3 0 1 1 2.5 3.9ZM7.5 3.9A2.3 2.3 0 1 1 7.5 8.5 2.3 2.3 0 1 1 7.5 3.9ZM4.5 6H5.5L6.4 10H3.6Z" },
};
const RANK_NAMES = {
  2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
  10: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
const STAR = "M0-5L1.2-1.6 4.8-1.5 1.9.6 2.9 4 0 2 -2.9 4 -1.9.6 -4.8-1.5 -1.2-1.6Z";
const W = 60;
const H = 84;

function svgElement(tag, attributes) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, String(v));
  return el;
}

function parseCard(text) {
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}

// "queen of hearts", plus ", trump" for a trump.
function cardName(text, trump) {
  const { rank, suit } = parseCard(text);
  return `${RANK_NAMES[rank]} of ${SUITS[suit].name}${trump ? ", trump" : ""}`;
}

function suitShape(suit, x, y, size) {
  return svgElement("path", {
    d: SUITS[suit].path,
    transform: `translate(${x} ${y}) scale(${size / 10})`,
  });
}

function corner(rank, suit) {
  const g = svgElement("g", {});
  const text = svgElement("text", {
    x: 10, y: 17, "text-anchor": "middle", "font-size": rank.length > 1 ? 14 : 16,
    "font-weight": 700, "font-family": "system-ui, sans-serif",
    "letter-spacing": rank.length > 1 ? -1.5 : 0,
  });
  text.textContent = rank;
  g.append(text, suitShape(suit, 5, 21, 10));
  return g;
}

// The face of ``text`` (e.g. "10♥"), its trump star if ``trump``; an <svg> hidden from
// screen readers (its holder carries the name).
function cardFace(text, trump) {
  const { rank, suit } = parseCard(text);
  const colour = SUITS[suit].red ? "#c62828" : "#161616";
  const svg = svgElement("svg", { viewBox: `0 0 ${W} ${H}`, "aria-hidden": "true", focusable: "false" });
  svg.append(svgElement("rect", {
    x: 1, y: 1, width: W - 2, height: H - 2, rx: 5, fill: "#fffdf6",
    stroke: trump ? "#b8860b" : "#444", "stroke-width": trump ? 3 : 1.2,
  }));
  const ink = svgElement("g", { fill: colour });
  ink.append(corner(rank, suit));
  const lower = corner(rank, suit);
  lower.setAttribute("transform", `rotate(180 ${W / 2} ${H / 2})`);
  ink.append(lower);
  if ("JQK".includes(rank)) {
    ink.append(svgElement("rect", {
      x: 17, y: 14, width: 26, height: 56, rx: 3, fill: "none", stroke: colour, "stroke-width": 1.5,
    }));
    const letter = svgElement("text", {
      x: W / 2, y: 40, "text-anchor": "middle", "font-size": 20, "font-weight": 700,
      "font-family": "Georgia, serif",
    });
    letter.textContent = rank;
    ink.append(letter, suitShape(suit, 21, 44, 18));
  } else {
    const size = rank === "A" ? 32 : 26;
    ink.append(suitShape(suit, (W - size) / 2, (H - size) / 2, size));
  }
  svg.append(ink);
  if (trump) {
    svg.append(svgElement("path", {
      d: STAR, transform: `translate(${W - 10} 10) scale(1.4)`, fill: "#ffc107",
      stroke: "#5d4000", "stroke-width": 0.6,
    }));
  }
  return svg;
}

function lattice(x, y, w, h, step) {
  let d = "";
  for (let cy = y + step / 2; cy < y + h; cy += step) {
    for (let cx = x + step / 2; cx < x + w; cx += step) {
      const r = step / 2 - 1;
      d += `M${cx} ${cy - r}L${cx + r} ${cy} ${cx} ${cy + r} ${cx - r} ${cy}Z`;
    }
  }
  return d;
}

function backAt(svg, dx) {
  const g = svgElement("g", { transform: `translate(${dx} 0)` });
  g.append(
    svgElement("rect", { x: 1, y: 1, width: W - 2, height: H - 2, rx: 5, fill: "#1b3d8f", stroke: "#f4f4f4", "stroke-width": 1.5 }),
    svgElement("rect", { x: 6, y: 6, width: W - 12, height: H - 12, rx: 3, fill: "none", stroke: "#f4f4f4", "stroke-width": 1 }),
    svgElement("path", { d: lattice(8, 8, W - 16, H - 16, 8.8), fill: "#8fb0ff" }),
  );
  svg.append(g);
}

// ``count`` card backs fanned in one <svg> (at most ``shown`` drawn).
function cardBacks(count, shown = 8) {
  const n = Math.max(1, Math.min(count, shown));
  const step = 12;
  const svg = svgElement("svg", {
    viewBox: `0 0 ${W + (n - 1) * step} ${H}`, "aria-hidden": "true", focusable: "false",
  });
  for (let i = 0; i < n; i++) backAt(svg, i * step);
  return svg;
}
