// Small helpers the game boards share: SVG elements, colours.

export const NS = "http://www.w3.org/2000/svg";

// An SVG element with attributes (a `class` string, `data-*`, ...), appended to `parent`.
export function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// A fresh <svg> of the given size filling `container`.
export function canvas(container, width, height) {
  container.replaceChildren();
  return el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img" }, container);
}

// `color` (#rrggbb) mixed with white: amount 1 keeps it, 0 is white.
export function tint(color, amount) {
  const mix = (i) => Math.round(255 - (255 - parseInt(color.slice(i, i + 2), 16)) * amount);
  return `rgb(${mix(1)}, ${mix(3)}, ${mix(5)})`;
}

// The legal actions as a Set of numbers.
export function legalSet(scene) {
  return new Set(scene.legal.map((m) => m.action));
}

// A game module's board: `update(scene)` redraws with `draw(scene)`, calling `forget()` first
// (dropping the piece picked) when the scene is of another version of the game.
export function board(draw, forget) {
  let version = null;
  return {
    update(scene) {
      if (scene.version !== version) forget();
      version = scene.version;
      draw(scene);
    },
  };
}
