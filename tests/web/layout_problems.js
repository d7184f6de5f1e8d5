// Measures the page from its DOM (tests/web/test_browser.py): boxes of cards and controls
// that overlap by more than a pixel, any of them outside the viewport's width, and text
// cut off in a labelled element.  The list of problems, one line each.
(() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) problems.push(`page wider than ${width}`);
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const name = (el) => `${el.tagName}#${el.id}.${el.className}[${el.getAttribute("aria-label") || el.textContent.slice(0, 30)}]`;
  const boxes = [...document.querySelectorAll(".card, .backs, button, select, input, label, .seat")].filter(shown);
  const rects = boxes.map((el) => el.getBoundingClientRect());
  boxes.forEach((el, i) => {
    if (rects[i].left < -0.5 || rects[i].right > width + 0.5) problems.push(`outside: ${name(el)}`);
    for (let j = i + 1; j < boxes.length; j++) {
      if (el.contains(boxes[j]) || boxes[j].contains(el)) continue;
      const dx = Math.min(rects[i].right, rects[j].right) - Math.max(rects[i].left, rects[j].left);
      const dy = Math.min(rects[i].bottom, rects[j].bottom) - Math.max(rects[i].top, rects[j].top);
      if (dx > 1 && dy > 1) problems.push(`overlap: ${name(el)} / ${name(boxes[j])}`);
    }
  });
  const texts = document.querySelectorAll("[aria-label], button, label, .label, .seat-name, #status, p, li");
  for (const el of [...texts].filter(shown)) {
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) problems.push(`clipped: ${name(el)}`);
    if (el.clientHeight > 0 && el.scrollHeight > el.clientHeight + 1) problems.push(`clipped: ${name(el)}`);
  }
  return problems;
})()
