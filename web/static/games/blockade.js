// Blockade board (RULES.md section 1): the grid with coordinates, goal squares tinted in their
// owner's colour, pawns, vertical walls green and horizontal walls blue. Moves: click one of
// your pawns, then a square (its legal squares are marked); in the wall phase point at an edge
// to see the wall there, click to place it. Action numbers are RULES.md's.
import { board, canvas, el, legalSet, tint } from "../svg.js";

const CELL = 40;
const MARGIN = 26;
const LEGEND = 34;
const PAWN_MOVES = 24; // actions 0..23: 12 * pawn + k
// Offsets of pawn move k, in RULES.md's order.
const OFFSETS = [[-1, 0], [1, 0], [0, -1], [0, 1], [-2, 0], [2, 0], [0, -2], [0, 2],
  [-1, -1], [-1, 1], [1, -1], [1, 1]];

export function create(container, hooks) {
  let selected = null; // the player to move's pawn index (0, 1) picked for a move
  let scene = null;

  function wallAction(o, r, c) {
    const { rows, cols } = scene.position;
    return PAWN_MOVES + o * (rows - 1) * (cols - 1) + (r - 1) * (cols - 1) + (c - 1);
  }

  function ownPawns() {
    return scene.position.pawns[scene.position.to_move];
  }

  function targets(k) {
    const legal = legalSet(scene);
    const [r, c] = ownPawns()[k];
    return OFFSETS.map(([dr, dc], i) => ({ r: r + dr, c: c + dc, action: 12 * k + i }))
      .filter((t) => legal.has(t.action));
  }

  function clickCell(r, c) {
    if (!scene.interactive || scene.position.phase !== "move") return;
    const own = ownPawns().findIndex(([pr, pc]) => pr === r && pc === c);
    if (own >= 0) {
      selected = selected === own ? null : own;
      draw();
      return;
    }
    if (selected === null) {
      hooks.say("click one of your pawns first, then a square");
      return;
    }
    const [pr, pc] = ownPawns()[selected];
    const k = OFFSETS.findIndex(([dr, dc]) => dr === r - pr && dc === c - pc);
    if (k < 0) {
      hooks.say("a pawn moves 1 or 2 steps: pick one of the marked squares");
      return;
    }
    hooks.play(12 * selected + k); // the engine says why, if it is not legal
  }

  function draw() {
    const { position, layout, seats } = scene;
    const { rows, cols } = position;
    const x = (c) => MARGIN + c * CELL;
    const y = (r) => MARGIN + r * CELL;
    const svg = canvas(container, 2 * MARGIN + cols * CELL, 2 * MARGIN + rows * CELL + LEGEND);
    svg.classList.add("blockade");
    const goalOwner = new Map();
    layout.goals.forEach((cells, p) => cells.forEach(([r, c]) => goalOwner.set(`${r},${c}`, p)));
    const grid = el("g", {}, svg);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const owner = goalOwner.get(`${r},${c}`);
        const cell = el("rect", {
          x: x(c), y: y(r), width: CELL, height: CELL, class: "cell", "data-cell": `${r},${c}`,
          fill: owner === undefined ? "#f5eedc" : tint(seats[owner].color, 0.3),
        }, grid);
        cell.addEventListener("click", () => clickCell(r, c));
      }
    }
    for (let c = 0; c < cols; c++) {
      el("text", { x: x(c) + CELL / 2, y: MARGIN / 2 + 4, class: "coord" }, svg,
        String.fromCharCode(97 + c));
    }
    for (let r = 0; r < rows; r++) {
      el("text", { x: MARGIN / 2, y: y(r) + CELL / 2 + 4, class: "coord" }, svg, `${r + 1}`);
    }
    if (scene.interactive && position.phase === "move" && selected !== null) {
      for (const t of targets(selected)) {
        el("circle", { cx: x(t.c) + CELL / 2, cy: y(t.r) + CELL / 2, r: 7, class: "target",
          "data-target": `${t.r},${t.c}` }, svg);
      }
    }
    for (const [o, r, c] of position.walls) {
      const line = o === "V"
        ? { x1: x(c), y1: y(r - 1) + 2, x2: x(c), y2: y(r + 1) - 2 }
        : { x1: x(c - 1) + 2, y1: y(r), x2: x(c + 1) - 2, y2: y(r) };
      el("line", { ...line, class: `wall wall-${o}` }, svg);
    }
    drawPawns(svg, x, y);
    if (scene.interactive && position.phase === "wall") drawWallTargets(svg, x, y);
    drawLegend(svg, y(rows) + 22);
  }

  function drawPawns(svg, x, y) {
    const { position, seats } = scene;
    const legal = legalSet(scene);
    position.pawns.forEach((pawns, p) => pawns.forEach(([r, c], k) => {
      const mine = scene.interactive && p === position.to_move && position.phase === "move";
      const movable = mine && OFFSETS.some((_, i) => legal.has(12 * k + i));
      const group = el("g", { class: `pawn${movable ? " movable" : ""}${mine && selected === k ? " selected" : ""}`,
        "data-piece": `pawn-${p}-${k}` }, svg);
      el("circle", { cx: x(c) + CELL / 2, cy: y(r) + CELL / 2, r: CELL / 2 - 6, fill: seats[p].color }, group);
      el("text", { x: x(c) + CELL / 2, y: y(r) + CELL / 2 + 4, class: "piece-label" }, group, `${k}`);
      group.addEventListener("click", () => clickCell(r, c));
    }));
  }

  // Every interior edge can take a wall: the legal ones show their wall in colour under the
  // pointer, the others in grey (a click there is sent, and the engine says why not).
  function drawWallTargets(svg, x, y) {
    const { rows, cols } = scene.position;
    const legal = legalSet(scene);
    const ghost = el("line", { class: "ghost", visibility: "hidden" }, svg);
    const hits = el("g", { class: "wall-hits" }, svg);
    for (let r = 1; r < rows; r++) {
      for (let c = 1; c < cols; c++) {
        for (const o of [0, 1]) {
          const action = wallAction(o, r, c);
          const name = `${"VH"[o]},${r},${c}`;
          const box = o === 0
            ? { x: x(c) - 7, y: y(r) - CELL / 2, width: 14, height: CELL }
            : { x: x(c) - CELL / 2, y: y(r) - 7, width: CELL, height: 14 };
          const hit = el("rect", { ...box, class: legal.has(action) ? "hit legal" : "hit",
            "data-wall": name, "data-action": action }, hits);
          const line = o === 0
            ? { x1: x(c), y1: y(r - 1) + 2, x2: x(c), y2: y(r + 1) - 2 }
            : { x1: x(c - 1) + 2, y1: y(r), x2: x(c + 1) - 2, y2: y(r) };
          hit.addEventListener("mouseenter", () => {
            for (const [key, value] of Object.entries(line)) ghost.setAttribute(key, value);
            ghost.setAttribute("class", `ghost wall-${"VH"[o]}${legal.has(action) ? "" : " illegal"}`);
            ghost.setAttribute("data-preview", name);
            ghost.setAttribute("visibility", "visible");
          });
          hit.addEventListener("mouseleave", () => ghost.setAttribute("visibility", "hidden"));
          hit.addEventListener("click", () => hooks.play(action));
        }
      }
    }
  }

  function drawLegend(svg, top) {
    const { position, seats } = scene;
    position.walls_left.forEach(([v, h], p) => {
      const left = MARGIN + p * 110;
      el("circle", { cx: left + 6, cy: top - 4, r: 6, fill: seats[p].color }, svg);
      el("text", { x: left + 16, y: top, class: "legend" }, svg, `walls V${v} H${h}`);
    });
  }

  return board((next) => { scene = next; draw(); }, () => { selected = null; });
}

// The status line's words for the player to move.
export function phase(position) {
  return position.phase === "wall" ? "place a wall" : "move a pawn";
}
