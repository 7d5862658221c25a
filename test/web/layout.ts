// Layout checks run inside the page (as source text, so no bundler helper leaks into them).

/**
 * Every pair of visible text runs whose boxes intersect by more than 1 px, each box clipped by
 * its scrolling or clipping ancestors (text cut off by an ellipsis is not counted past its box).
 * Answers a list of "text A / text B" strings, empty when nothing overlaps.
 */
export const findOverlaps = `(() => {
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('title, option, script, style, .sr-only')) continue;
    const details = el.closest('details');
    if (details && !details.open && !el.closest('summary')) continue; // not rendered
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      let box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      for (let a = el; a && a !== document.body; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const c = a.getBoundingClientRect();
        box = { left: Math.max(box.left, c.left), top: Math.max(box.top, c.top), right: Math.min(box.right, c.right), bottom: Math.min(box.bottom, c.bottom) };
      }
      if (box.right - box.left > 1 && box.bottom - box.top > 1) boxes.push({ box, node, text: text.slice(0, 40) });
    }
  }
  const problems = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].box, b = boxes[j].box;
      if (boxes[i].node === boxes[j].node) continue;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) problems.push(boxes[i].text + ' / ' + boxes[j].text);
    }
  }
  return problems;
})()`;

/** Buttons, links, inputs and selects without an accessible name (label, aria-label, text or title). */
export const unnamedControls = `(() => [...document.querySelectorAll('button, a[href], input, select, textarea, summary, [role="meter"], [role="progressbar"], svg[role="img"]')]
  .filter((el) => !(el.getAttribute('aria-label') || (el.labels && el.labels.length) || el.textContent.trim() || el.getAttribute('title')))
  .map((el) => el.outerHTML.slice(0, 80)))()`;
