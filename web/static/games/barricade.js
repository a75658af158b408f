// Barricade board (RULES.md section 2): the dark board with its white tracks, Base Stations
// (rings in the owner's colour), Outer Stations (discs) and Cross Stations (crosses); Scouts as
// discs, Guards as squares, each side's tray and forfeited pieces at the right. A turn is two
// half-moves: click a Scout or a Guard (tray or board), then a station; a piece that must be
// forfeited is clicked alone. The first half-move of a turn shows as an orange arrow.
import { board, canvas, el, legalSet, tint } from "../svg.js";

const STEP = 46;
const LEFT = 50;
const TOP = 40;
const PANEL = 190;
const GUARD_ACTIONS = 12; // 12 + 63 * guard + 7 * (line - 3) + (file - 1)
const CROSS = 63;
const FORFEIT_GUARD = 138;
const FORFEIT_SCOUT = 140;
// Scout step d: 0 = line + 1, 1 = line - 1, 2 = file - 1, 3 = file + 1.
const DELTAS = [[1, 0], [-1, 0], [0, -1], [0, 1]];

export function create(container, hooks) {
  let selected = null; // {kind: "scout" | "guard", index}
  let scene = null;

  const x = (file) => LEFT + (file - 1) * STEP;
  const y = (line) => TOP + (scene.layout.lines - line) * STEP;

  function actionsOf(kind, index) {
    return scene.legal.map((m) => m.action).filter((a) => (kind === "scout"
      ? a < GUARD_ACTIONS && Math.floor(a / 4) === index
      : a >= GUARD_ACTIONS && a < FORFEIT_GUARD && Math.floor((a - GUARD_ACTIONS) / CROSS) === index));
  }

  function forfeitOf(kind, index) {
    return (kind === "scout" ? FORFEIT_SCOUT : FORFEIT_GUARD) + index;
  }

  // A click on a piece: your own picks it (or forfeits it, when a forfeit is due); any other
  // piece on the board, while one of yours is picked, means its station.
  function clickPiece(p, kind, index, station) {
    if (!scene.interactive) return;
    if (p !== scene.position.to_move) {
      if (selected && station) clickStation(...station);
      return;
    }
    if (legalSet(scene).has(forfeitOf(kind, index))) {
      hooks.play(forfeitOf(kind, index));
      return;
    }
    selected = selected && selected.kind === kind && selected.index === index ? null : { kind, index };
    draw();
  }

  function clickStation(line, file) {
    if (!scene.interactive) return;
    if (!selected) {
      hooks.say("click one of your Scouts or Guards first, then a station");
      return;
    }
    const p = scene.position.to_move;
    if (selected.kind === "guard") {
      if (line < 3 || line > 11) {
        hooks.say("Guards stand only on Cross Stations (lines 3 to 11)");
        return;
      }
      hooks.play(GUARD_ACTIONS + CROSS * selected.index + 7 * (line - 3) + (file - 1));
      return;
    }
    const [l, f] = scene.position.scouts[p][selected.index];
    const d = DELTAS.findIndex(([dl, df]) => dl === line - l && df === file - f);
    if (d < 0) {
      hooks.say("a Scout steps to an adjacent station");
      return;
    }
    hooks.play(4 * selected.index + d); // the engine says why, if it is not legal
  }

  function targetsOf() {
    if (!selected) return [];
    const p = scene.position.to_move;
    return actionsOf(selected.kind, selected.index).map((a) => {
      if (selected.kind === "guard") {
        const i = (a - GUARD_ACTIONS) % CROSS;
        return [3 + Math.floor(i / 7), 1 + (i % 7)];
      }
      const [l, f] = scene.position.scouts[p][selected.index];
      const [dl, df] = DELTAS[a % 4];
      return [l + dl, f + df];
    });
  }

  function draw() {
    const { layout } = scene;
    const width = LEFT + (layout.files - 1) * STEP + 40 + PANEL;
    const height = TOP + (layout.lines - 1) * STEP + 50;
    const svg = canvas(container, width, height);
    svg.classList.add("barricade");
    el("rect", { x: LEFT - 26, y: TOP - 26, width: (layout.files - 1) * STEP + 52,
      height: (layout.lines - 1) * STEP + 52, rx: 10, class: "barricade-board" }, svg);
    for (const [[l1, f1], [l2, f2]] of layout.tracks) {
      el("line", { x1: x(f1), y1: y(l1), x2: x(f2), y2: y(l2), class: "track" }, svg);
    }
    for (let file = 1; file <= layout.files; file++) {
      el("text", { x: x(file), y: TOP - 30, class: "coord" }, svg, "abcdefg"[file - 1]);
    }
    for (let line = 1; line <= layout.lines; line++) {
      const sweep = layout.sweep_lines.includes(line) ? " ~" : "";
      el("text", { x: LEFT - 36, y: y(line) + 4, class: "coord" }, svg, `${line}${sweep}`);
    }
    drawStations(svg);
    drawTurn(svg);
    drawPieces(svg);
    drawPanel(svg, LEFT + (layout.files - 1) * STEP + 40);
  }

  function drawStations(svg) {
    const { layout, seats } = scene;
    const targets = new Set(targetsOf().map(([l, f]) => `${l},${f}`));
    for (const [line, file, kind] of layout.stations) {
      const cx = x(file);
      const cy = y(line);
      if (kind === "base") {
        const owner = layout.base_lines.indexOf(line);
        el("circle", { cx, cy, r: 17, fill: tint(seats[owner].color, 0.45), stroke: seats[owner].color,
          "stroke-width": 4 }, svg);
      } else if (kind === "outer") {
        el("circle", { cx, cy, r: 9, class: "outer" }, svg);
      } else {
        el("path", { d: `M${cx - 9} ${cy}h18M${cx} ${cy - 9}v18`, class: "cross" }, svg);
      }
      if (targets.has(`${line},${file}`)) {
        el("circle", { cx, cy, r: 8, class: "target", "data-target": `${line},${file}` }, svg);
      }
      const hit = el("circle", { cx, cy, r: 21, class: "hit", "data-station": `${line},${file}` }, svg);
      hit.addEventListener("click", () => clickStation(line, file));
    }
  }

  function drawTurn(svg) {
    const { position } = scene;
    const first = position.first_half;
    if (first && first.kind === "scout") {
      const [l, f] = first.from;
      const [dl, df] = DELTAS[first.d];
      el("line", { x1: x(f), y1: y(l), x2: x(f + df), y2: y(l + dl), class: "half-move" }, svg);
    }
    position.sweep.forEach((sweep) => {
      if (!sweep) return;
      const [[l1, f1], [l2, f2]] = sweep.stations;
      el("line", { x1: x(f1), y1: y(l1) - 20, x2: x(f2), y2: y(l2) - 20, class: "sweep" }, svg);
      el("text", { x: (x(f1) + x(f2)) / 2, y: y(l1) - 26, class: "sweep-count" }, svg,
        `${sweep.count}/${scene.layout.sweep_turns}`);
    });
  }

  function pieceClass(p, kind, index) {
    if (!scene.interactive || p !== scene.position.to_move) return "piece";
    const legal = legalSet(scene);
    const can = legal.has(forfeitOf(kind, index)) || actionsOf(kind, index).length > 0;
    const picked = selected && selected.kind === kind && selected.index === index;
    return `piece${can ? " movable" : ""}${picked ? " selected" : ""}${legal.has(forfeitOf(kind, index)) ? " forfeit" : ""}`;
  }

  // A Scout at (cx, cy); `station` is its [line, file] when it stands on the board.
  function scout(parent, p, s, cx, cy, station, placed) {
    const group = el("g", { class: pieceClass(p, "scout", s), "data-piece": `scout-${p}-${s}` }, parent);
    if (placed) el("circle", { cx, cy, r: 20, class: "placed" }, group);
    el("circle", { cx, cy, r: 15, fill: scene.seats[p].color, class: "scout" }, group);
    el("text", { x: cx, y: cy + 4, class: "piece-label" }, group, `S${s}`);
    group.addEventListener("click", () => clickPiece(p, "scout", s, station));
  }

  function guard(parent, p, g, cx, cy, station) {
    const group = el("g", { class: pieceClass(p, "guard", g), "data-piece": `guard-${p}-${g}` }, parent);
    el("rect", { x: cx - 13, y: cy - 13, width: 26, height: 26, rx: 4, fill: scene.seats[p].color,
      class: "guard" }, group);
    el("text", { x: cx, y: cy + 4, class: "piece-label" }, group, `G${g}`);
    group.addEventListener("click", () => clickPiece(p, "guard", g, station));
  }

  function drawPieces(svg) {
    const { position, layout } = scene;
    position.scouts.forEach((scouts, p) => scouts.forEach((where, s) => {
      if (where === "out") return;
      scout(svg, p, s, x(where[1]), y(where[0]), where, where[0] === layout.base_lines[1 - p]);
    }));
    position.guards.forEach((guards, p) => guards.forEach((where, g) => {
      if (Array.isArray(where)) guard(svg, p, g, x(where[1]), y(where[0]), where);
    }));
  }

  function drawPanel(svg, left) {
    const { position, layout, seats } = scene;
    const scores = scoresOf(position, layout.score_values);
    // North (player 1) at the top, beside its base; South at the bottom.
    [[1, TOP - 20], [0, y(1) - 150]].forEach(([p, top]) => {
      const toMove = p === position.to_move ? "  ◀" : "";
      el("text", { x: left, y: top, class: "panel-title", fill: seats[p].color }, svg,
        `${layout.player_names[p]} (player ${p})${toMove}`);
      el("text", { x: left, y: top + 24, class: "panel-score" }, svg, `score ${scores[p]}`);
      const placed = position.placed_order[p].map((s, i) => `S${s}+${layout.score_values[i]}`).join(" ");
      el("text", { x: left, y: top + 44, class: "legend" }, svg, `placed: ${placed || "-"}`);
      el("text", { x: left, y: top + 72, class: "legend" }, svg, "tray");
      position.guards[p].forEach((where, g) => {
        if (where === "tray") guard(svg, p, g, left + 50 + 32 * g, top + 68, null);
      });
      el("text", { x: left, y: top + 106, class: "legend" }, svg, "out");
      let cx = left + 50;
      const crossOut = () => el("path", { d: `M${cx - 14} ${top + 88}l28 28m0 -28l-28 28`,
        class: "out-mark" }, svg);
      position.guards[p].forEach((where, g) => {
        if (where !== "out") return;
        guard(svg, p, g, cx, top + 102, null);
        crossOut();
        cx += 32;
      });
      position.scouts[p].forEach((where, s) => {
        if (where !== "out") return;
        scout(svg, p, s, cx, top + 102, null, false);
        crossOut();
        cx += 34;
      });
    });
  }

  return board((next) => { scene = next; draw(); }, () => { selected = null; });
}

// Each side's score (RULES.md: 1, 3, 5 for its 1st, 2nd, 3rd placed Scout; in Variations I and
// II, once a side has lost a Scout and has none in play, the other side also scores its next
// values for each Scout it still has in play).
export function scoresOf(position, values) {
  const sum = (list) => list.reduce((a, b) => a + b, 0);
  const scores = position.placed_order.map((placed) => sum(values.slice(0, placed.length)));
  const inPlay = position.scouts.map((scouts, p) => scouts.filter((where, s) =>
    where !== "out" && !position.placed_order[p].includes(s)).length);
  [0, 1].forEach((p) => {
    if (inPlay[p] === 0 && position.scouts[p].includes("out")) {
      const q = 1 - p;
      const n = position.placed_order[q].length;
      scores[q] += sum(values.slice(n, n + inPlay[q]));
    }
  });
  return scores;
}

export function phase(position) {
  return position.half === 1 ? "second half-move" : "first half-move";
}
