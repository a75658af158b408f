// Nobles board (RULES.md section 3) on the 15 x 15 cross of the text board: the 52 tiles of the
// loop with their numbers, Castles in grey, entering tiles and Home paths in their seat's
// colour, the Yards in the corners, the roll in the middle. A Noble is a disc with a gold ring
// and N; the Guards of a player on one place are one disc with their count. Moves: click a
// Noble or a Guard stack that may move (ringed), pick how many Guards move when several may,
// then click the marked tile where the move ends. Action numbers are RULES.md's.
import { board, canvas, el, legalSet, tint } from "../svg.js";

const CELL = 36;
const STRIP = 44; // below the board: how many Guards move
const NOBLE = 0; // action 0 moves the Noble; 1 + 4 * progress + (k - 1) moves k Guards
const CENTRE = [[6, 6], [6, 8], [8, 6], [8, 8], [7, 7]];
const YARD = 6;

export function create(container, hooks) {
  let selected = null; // {noble: bool, progress, k, action, target: [r, c] | null}
  let scene = null;

  const guardAction = (progress, k) => 1 + 4 * progress + (k - 1);

  function choices(noble, progress) {
    const legal = legalSet(scene);
    if (noble) return legal.has(NOBLE) ? [1] : [];
    return [1, 2, 3, 4].filter((k) => legal.has(guardAction(progress, k)));
  }

  function pick(noble, progress, k) {
    const action = noble ? NOBLE : guardAction(progress, k);
    selected = { noble, progress, k, action, target: null };
    draw();
    const asked = selected;
    hooks.preview(action).then((after) => {
      if (selected !== asked || !after) return;
      selected.target = destination(after, noble, progress);
      draw();
    });
  }

  // The cell where the picked mover ends, from the position after the move.
  function destination(after, noble, progress) {
    const p = scene.position.to_move;
    const { cells } = scene.layout;
    let end;
    if (noble) {
      end = after.nobles[p];
    } else {
      const before = [...scene.position.guards[p]];
      end = after.guards[p].find((q) => {
        const i = before.indexOf(q);
        if (i >= 0) before.splice(i, 1);
        return i < 0;
      });
    }
    if (end === undefined || end === progress) return null;
    return cells[p][end];
  }

  function clickToken(p, noble, progress) {
    if (!scene.interactive) return;
    if (p !== scene.position.to_move) {
      if (selected) hooks.say("click the marked tile to move there");
      return;
    }
    const ks = choices(noble, progress);
    if (!ks.length) {
      hooks.say(noble ? "the Noble cannot move with this roll"
        : "these Guards cannot move with this roll");
      return;
    }
    if (selected && selected.noble === noble && selected.progress === progress) {
      selected = null;
      draw();
      return;
    }
    pick(noble, progress, ks[0]);
  }

  function draw() {
    const { layout, position, seats } = scene;
    const size = layout.grid * CELL;
    const svg = canvas(container, size, size + STRIP);
    svg.classList.add("nobles");
    const box = (r, c, attrs, parent = svg) => el("rect", { x: c * CELL, y: r * CELL, width: CELL,
      height: CELL, class: "tile", ...attrs }, parent);
    const playerOfSeat = new Map(layout.seats.map((s, p) => [s, p]));
    const seatColor = (s) => (playerOfSeat.has(s) ? seats[playerOfSeat.get(s)].color : "#aaaaaa");
    layout.yards.forEach(([r, c], s) => {
      el("rect", { x: c * CELL, y: r * CELL, width: YARD * CELL, height: YARD * CELL,
        class: "yard", fill: tint(seatColor(s), 0.35) }, svg);
      layout.home[s].forEach(([hr, hc], i) => box(hr, hc, {
        fill: tint(seatColor(s), i === 5 ? 0.85 : 0.45) }));
    });
    CENTRE.forEach(([r, c]) => box(r, c, { class: "tile centre" }));
    layout.track.forEach(([r, c], i) => {
      const tile = i + 1;
      const entering = layout.entering.indexOf(tile);
      const castle = layout.castles.includes(tile);
      let fill = "#ffffff";
      if (entering >= 0) fill = playerOfSeat.has(entering) ? tint(seatColor(entering), 0.55) : "#d7d7d7";
      if (castle) fill = "#bebec8";
      box(r, c, { fill, "data-tile": tile, class: castle ? "tile castle" : "tile" });
      if (castle) {
        el("path", { d: `M${c * CELL + 7} ${r * CELL + 31}v-9h4v3h4v-3h4v3h4v-3h4v9z`, class: "battlement" }, svg);
      }
      el("text", { x: c * CELL + 2, y: r * CELL + 9, class: "tile-number" }, svg, `${tile}`);
    });
    drawRoll(svg, position.roll);
    drawTokens(svg);
    if (selected && selected.target) {
      const [r, c] = selected.target;
      const target = el("rect", { x: c * CELL + 2, y: r * CELL + 2, width: CELL - 4, height: CELL - 4,
        class: "target-tile", "data-target": `${r},${c}` }, svg);
      target.addEventListener("click", () => hooks.play(selected.action));
    }
    drawCountChoice(svg, size);
  }

  function drawRoll(svg, roll) {
    const [r, c] = [7, 7];
    el("rect", { x: c * CELL + 3, y: r * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 6,
      class: "board-die", "data-roll": roll ?? "" }, svg);
    el("text", { x: c * CELL + CELL / 2, y: r * CELL + CELL / 2 + 6, class: "board-die-value" }, svg,
      roll === null ? "·" : `${roll}`);
  }

  // Each place's pieces: per player a Noble and a Guard stack (with its count), laid out side by
  // side when several share a cell. A Yard holds its pieces in two fixed cells.
  function drawTokens(svg) {
    const { layout, position } = scene;
    const byCell = new Map();
    const add = (cell, token) => {
      const key = `${cell[0]},${cell[1]}`;
      if (!byCell.has(key)) byCell.set(key, { cell, tokens: [] });
      byCell.get(key).tokens.push(token);
    };
    position.nobles.forEach((progress, p) => {
      const [r, c] = layout.yards[layout.seats[p]];
      add(progress === 0 ? [r + 2, c + 2] : layout.cells[p][progress], { p, noble: true, progress });
    });
    position.guards.forEach((guards, p) => {
      const counts = new Map();
      guards.forEach((q) => counts.set(q, (counts.get(q) || 0) + 1));
      const [r, c] = layout.yards[layout.seats[p]];
      counts.forEach((count, q) => add(q === 0 ? [r + 2, c + 3] : layout.cells[p][q],
        { p, noble: false, progress: q, count }));
    });
    byCell.forEach(({ cell, tokens }) => drawCell(svg, cell, tokens));
    layout.yards.forEach(([r, c], s) => {
      if (!layout.seats.includes(s)) return;
      el("text", { x: c * CELL + 8, y: r * CELL + 18, class: "legend" }, svg,
        `Yard ${scene.seats[layout.seats.indexOf(s)].color_name}`);
    });
  }

  function drawCell(svg, [r, c], tokens) {
    const perRow = tokens.length === 1 ? 1 : tokens.length <= 4 ? 2 : 3;
    const w = CELL / perRow;
    const rows = Math.ceil(tokens.length / perRow);
    const top = r * CELL + (CELL - rows * w) / 2;
    tokens.forEach((token, i) => {
      const cx = c * CELL + (i % perRow + 0.5) * w;
      const cy = top + (Math.floor(i / perRow) + 0.5) * w;
      const mine = scene.interactive && token.p === scene.position.to_move;
      const movable = mine && choices(token.noble, token.progress).length > 0;
      const picked = selected && mine && selected.noble === token.noble && selected.progress === token.progress;
      const name = token.noble ? `noble-${token.p}` : `guards-${token.p}-${token.progress}`;
      const group = el("g", { class: `piece${movable ? " movable" : ""}${picked ? " selected" : ""}`,
        "data-piece": name }, svg);
      el("circle", { cx, cy, r: w * 0.38, fill: scene.seats[token.p].color,
        class: token.noble ? "noble" : "guards" }, group);
      el("text", { x: cx, y: cy + 4, class: "piece-label" }, group, token.noble ? "N" : `${token.count}`);
      group.addEventListener("click", () => clickToken(token.p, token.noble, token.progress));
    });
  }

  function drawCountChoice(svg, top) {
    if (!selected || selected.noble) return;
    const ks = choices(false, selected.progress);
    el("text", { x: 8, y: top + 27, class: "legend" }, svg, ks.length > 1 ? "Guards to move:" : "");
    if (ks.length < 2) return;
    ks.forEach((k, i) => {
      const group = el("g", { class: `count${k === selected.k ? " selected" : ""}`, "data-count": k }, svg);
      el("rect", { x: 120 + i * 40, y: top + 8, width: 32, height: 28, rx: 5 }, group);
      el("text", { x: 136 + i * 40, y: top + 27, class: "count-label" }, group, `${k}`);
      group.addEventListener("click", () => pick(false, selected.progress, k));
    });
  }

  return board((next) => { scene = next; draw(); }, () => { selected = null; });
}

export function phase(position) {
  return position.roll === null ? "roll the dice" : `move ${position.roll} steps`;
}
