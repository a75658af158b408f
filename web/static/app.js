// The web player's page: the room (choose a game and its seats), the table (play or watch one
// game, kept by the server; its id is in the address, so a reload resumes it) and the replay of
// recorded games. The server's engine decides everything: every answer carries the whole game,
// and the page redraws from it. Each game's board is drawn by its module in games/.
import * as barricade from "./games/barricade.js";
import * as blockade from "./games/blockade.js";
import * as nobles from "./games/nobles.js";

const BOARDS = { blockade, barricade, nobles };
const $ = (id) => document.getElementById(id);

class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new ApiError(data.error || response.statusText, response.status);
  return data;
}

function say(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = !text;
}

function show(view) {
  for (const id of ["room", "table", "replay"]) $(id).hidden = id !== view;
  document.body.dataset.view = view;
}

function seatLabel(seat, p) {
  return `player ${p} (${seat.color_name}): ${seat.human ? "human" : seat.spec}`;
}

function fillSeats(list, seats) {
  list.replaceChildren(...seats.map((seat, p) => {
    const item = document.createElement("li");
    item.style.setProperty("--seat", seat.color);
    item.dataset.seat = p;
    item.textContent = seatLabel(seat, p);
    return item;
  }));
}

// One entry of a move list: the seat's colour and the move, or the dice and the roll.
function stepItem(step, seats) {
  const item = document.createElement("li");
  item.textContent = step.seat === -1 ? `dice: ${step.text}` : `P${step.seat}: ${step.text}`;
  if (step.seat >= 0) item.style.setProperty("--seat", seats[step.seat].color);
  return item;
}

function resultText(result, seats) {
  if (!result) return "";
  const names = result.winners.map((p) => `player ${p} (${seats[p].color_name})`);
  let text;
  if (result.resigned !== null) text = `player ${result.resigned} resigned; ${names.join(" and ")} ${names.length === 1 ? "wins" : "win"}`;
  else if (result.truncated) text = "the game ended at the turn limit";
  else if (names.length) text = `${names.join(" and ")} ${names.length === 1 ? "wins" : "win"}`;
  else text = "the game is a draw";
  return `Game over: ${text}. Returns ${result.returns.map((r) => r.toFixed(2)).join(", ")}.`;
}

// ---- the room -------------------------------------------------------------------------------

const room = { catalog: null, seatChoices: [] };

async function openRoom() {
  show("room");
  if (!room.catalog) room.catalog = await api("GET", "/api/catalog");
  const { configs, defaults } = room.catalog;
  const last = JSON.parse(sessionStorage.getItem("room") || "null") || defaults;
  const select = $("room-config");
  select.replaceChildren(...Object.keys(configs).map((name) => new Option(name, name)));
  select.value = last.config;
  $("room-seed").value = last.seed;
  select.onchange = () => { fillSettings({}); refreshSeats([]); };
  fillSettings(last.env || {});
  await refreshSeats(last.seats, last.hint_agent);
}

function fillSettings(values) {
  const { values: base, help } = room.catalog.configs[$("room-config").value];
  const fields = $("room-settings-fields");
  fields.replaceChildren();
  $("room-players").replaceChildren();
  for (const [key, value] of Object.entries(base)) {
    if (key === "name") continue;
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.name = key;
    input.dataset.setting = key;
    const current = key in values ? values[key] : value;
    input.value = current === null ? "" : typeof current === "object" ? JSON.stringify(current) : `${current}`;
    input.placeholder = "null";
    input.title = help[key] || "";
    input.onchange = () => refreshSeats(currentSeats());
    label.append(`${key} `, input);
    const note = document.createElement("small");
    note.textContent = help[key] || "";
    label.append(note);
    // The seat count is the setting everyone sets: shown outside the folded settings.
    (key === "num_players" ? $("room-players") : fields).append(label);
  }
}

function settings() {
  const values = {};
  for (const input of document.querySelectorAll("#room-form input[data-setting]")) {
    values[input.name] = input.value;
  }
  return values;
}

function currentSeats() {
  return [...document.querySelectorAll("#room-seat-rows .seat-row")].map((row) => {
    const options = row.querySelector("input").value.trim();
    const spec = row.querySelector("select").value;
    return options ? `${spec}:${options}` : spec;
  });
}

// Split "mcts:simulations=200" into the listed spec and its options.
function splitSpec(spec, listed) {
  if (listed.includes(spec)) return [spec, ""];
  const base = listed.filter((s) => spec.startsWith(`${s}:`)).sort((a, b) => b.length - a.length)[0];
  return base ? [base, spec.slice(base.length + 1)] : [listed[0], ""];
}

// The seat rows for the chosen config and settings, from the server (which checks them); only
// the answer to the latest change is shown.
async function refreshSeats(wanted, hintAgent) {
  const asked = (room.asked = (room.asked || 0) + 1);
  document.body.dataset.room = "busy";
  let setup;
  try {
    setup = await api("POST", "/api/setup", { config: $("room-config").value, env: settings() });
  } catch (error) {
    if (asked !== room.asked) return;
    say(error.message);
    $("room-start").disabled = true;
    document.body.dataset.room = "ready";
    return;
  }
  if (asked !== room.asked) return;
  fillSeatRows(setup, wanted, hintAgent);
  document.body.dataset.room = "ready";
}

function fillSeatRows(setup, wanted, hintAgent) {
  say("");
  $("room-start").disabled = false;
  const rows = $("room-seat-rows");
  rows.replaceChildren();
  for (let p = 0; p < setup.num_players; p++) {
    const [spec, options] = splitSpec(wanted[p] || (p === 0 ? "human" : "heuristic"), setup.agents);
    const row = document.createElement("div");
    row.className = "seat-row";
    row.dataset.seat = p;
    const select = document.createElement("select");
    select.append(...setup.agents.map((a) => new Option(a, a)));
    select.value = spec;
    const input = document.createElement("input");
    input.placeholder = "options, e.g. simulations=200 or sims=200";
    input.value = options;
    row.append(`player ${p} (${setup.color_names[p]}) `, select, input);
    rows.append(row);
  }
  const hints = $("room-hints");
  const keep = hintAgent ?? hints.value;
  hints.replaceChildren(new Option("first network seat, else the heuristic", ""),
    ...setup.agents.filter((a) => a !== "human").map((a) => new Option(a, a)));
  hints.value = setup.agents.includes(keep) ? keep : "";
}

async function startGame(event) {
  event.preventDefault();
  const request = {
    config: $("room-config").value, env: settings(), seats: currentSeats(),
    seed: Number($("room-seed").value || 0), hint_agent: $("room-hints").value || null,
  };
  $("room-start").disabled = true;
  try {
    const view = await api("POST", "/api/games", request);
    sessionStorage.setItem("room", JSON.stringify(request));
    history.pushState({}, "", `/?game=${view.id}`);
    table.open(view);
  } catch (error) {
    say(error.message);
  } finally {
    $("room-start").disabled = false;
  }
}

// ---- the table: one live game ---------------------------------------------------------------

const table = {
  view: null,
  board: null,
  boardGame: null,
  busy: false,
  paused: false,
  timer: null,
  lastRoll: -1,
  analysed: null,

  open(view) {
    show("table");
    say("");
    this.paused = false;
    this.lastRoll = -1;
    this.board = null;
    this.update(view);
  },

  seatToMove() {
    const v = this.view;
    return v.result ? null : v.seats[v.to_move];
  },

  update(view) {
    this.view = view;
    const module = BOARDS[view.game];
    if (!this.board || this.boardGame !== view.game) {
      this.board = module.create($("board"), {
        play: (action) => this.send("move", { action }),
        preview: (action) => this.preview(action),
        say: (text) => say(text, "hint"),
      });
      this.boardGame = view.game;
    }
    const seat = this.seatToMove();
    const humanTurn = !!seat && seat.human && !this.busy;
    this.board.update({
      position: view.position, layout: view.layout, seats: view.seats, legal: view.legal,
      interactive: humanTurn, version: view.version,
    });
    document.body.dataset.version = view.version;
    document.body.dataset.turn = view.result ? "over" : seat.human ? "human" : "agent";
    this.drawPanel(module);
    this.schedule();
  },

  drawPanel(module) {
    const v = this.view;
    $("table-title").textContent = `${v.config} — game ${v.id}`;
    fillSeats($("seats"), v.seats);
    const seat = this.seatToMove();
    if (seat) {
      $("seats").children[v.to_move].classList.add("to-move");
      if (this.busy && !seat.human) $("seats").children[v.to_move].classList.add("thinking");
    }
    const status = $("status");
    status.dataset.returns = v.result ? JSON.stringify(v.result.returns) : "";
    if (v.result) status.textContent = resultText(v.result, v.seats);
    else if (seat.human) status.textContent = `Your move, player ${v.to_move} (${seat.color_name}): ${module.phase(v.position)}.`;
    else status.textContent = `player ${v.to_move} (${seat.spec}) ${this.busy ? "is thinking…" : "to move"}`;
    this.drawDice();
    $("undo").disabled = !v.can_undo || this.busy;
    $("resign").disabled = !!v.result || !v.seats.some((s) => s.human);
    const watching = !v.seats.some((s) => s.human) || (seat && !seat.human);
    $("pause").textContent = this.paused ? "Resume agents" : "Pause agents";
    $("step").disabled = !this.paused || !seat || seat.human || this.busy;
    $("pause").disabled = !watching && !this.paused;
    $("export-json").href = `/api/games/${v.id}/export.json`;
    $("export-gif").href = `/api/games/${v.id}/export.gif`;
    this.drawMoves(seat);
    this.drawHistory();
    if ($("analysis-box").open && this.analysed !== v.version) this.analyse();
  },

  drawDice() {
    const v = this.view;
    const rolls = v.history.map((s, i) => [s, i]).filter(([s]) => s.seat === -1);
    $("dice").hidden = !rolls.length;
    if (!rolls.length) return;
    const [last, index] = rolls[rolls.length - 1];
    const value = last.text.replace(/\D+/g, "");
    const die = $("die");
    const forWhom = v.history.length > index + 1 || !v.seats[v.position.to_move]
      ? "" : ` for player ${v.position.to_move}`;
    $("dice-text").textContent = ` rolled ${value}${forWhom}; ${v.legal.length} legal move(s)`;
    if (index !== this.lastRoll) {
      this.lastRoll = index;
      die.classList.remove("rolling");
      void die.offsetWidth; // restart the animation
      die.classList.add("rolling");
    }
    die.textContent = value;
    die.dataset.value = value;
  },

  drawMoves(seat) {
    const v = this.view;
    $("moves-count").textContent = v.legal.length;
    $("moves").replaceChildren(...v.legal.map((m) => {
      const button = document.createElement("button");
      button.textContent = m.text;
      button.dataset.move = m.action;
      button.disabled = !seat || !seat.human || this.busy;
      button.onclick = () => this.send("move", { action: m.action });
      return button;
    }));
  },

  drawHistory() {
    const v = this.view;
    const list = $("history");
    list.replaceChildren(...v.history.map((step) => stepItem(step, v.seats)));
    list.scrollTop = list.scrollHeight;
  },

  async analyse() {
    const v = this.view;
    const box = $("analysis");
    if (v.result || !this.seatToMove()) {
      box.textContent = "";
      return;
    }
    const version = v.version;
    this.analysed = version;
    try {
      const hint = await api("GET", `/api/games/${v.id}/analysis`);
      if (this.view.version !== version) return;
      const values = hint.values.map((value, p) => `<li style="--seat:${v.seats[p].color}">player ${p}: ${value >= 0 ? "+" : ""}${value.toFixed(2)}</li>`).join("");
      const moves = hint.moves.map((m) => `<li>${m.text}${m.probability === null ? "" : ` ${(100 * m.probability).toFixed(0)}%`}</li>`).join("");
      box.innerHTML = `<p>from ${hint.label}: value of the position per seat (-1 loss .. +1 win)</p><ul class="values">${values}</ul><p>top moves</p><ol class="top-moves">${moves}</ol>`;
    } catch (error) {
      box.textContent = error.message;
    }
  },

  // The next agent move, after the speed slider's delay, unless paused or a person is to move.
  schedule() {
    clearTimeout(this.timer);
    const seat = this.seatToMove();
    if (!seat || seat.human || this.paused || this.busy) return;
    const delay = 2000 - Number($("speed").value);
    this.timer = setTimeout(() => this.send("advance", {}), delay);
  },

  async send(what, body) {
    if (this.busy) return;
    const v = this.view;
    this.busy = true;
    this.update(v); // shows "thinking" and locks the board
    document.body.dataset.busy = "1";
    let next = v;
    try {
      next = await api("POST", `/api/games/${v.id}/${what}`, { ...body, version: v.version });
      if (what !== "advance") say("");
    } catch (error) {
      say(error.message);
      if (error.status === 409 || error.status === 404) {
        next = await api("GET", `/api/games/${v.id}`).catch(() => v);
      }
    } finally {
      this.busy = false;
      document.body.dataset.busy = "";
      this.update(next);
    }
  },

  async preview(action) {
    try {
      return (await api("POST", `/api/games/${this.view.id}/preview`, { action })).position;
    } catch (error) {
      say(error.message);
      return null;
    }
  },

  resign() {
    const v = this.view;
    const seat = this.seatToMove();
    const human = seat && seat.human ? v.to_move : v.seats.findIndex((s) => s.human);
    this.send("resign", { seat: human });
  },
};

async function openGame(id) {
  try {
    table.open(await api("GET", `/api/games/${id}`));
  } catch (error) {
    history.replaceState({}, "", "/");
    await openRoom();
    say(`${error.message}; start a new game`);
  }
}

// ---- replays --------------------------------------------------------------------------------

const replay = { data: null, at: 0, board: null };

async function openReplay(path, index) {
  show("replay");
  const catalog = (room.catalog = await api("GET", "/api/catalog")); // records saved since count
  const files = $("replay-file");
  files.replaceChildren(...catalog.records.map((r) => new Option(r, r)));
  if (!catalog.records.length) {
    say(`no game records below ${catalog.folders.join(", ")} yet (evaluate.py save_records=true writes them; so does "Save record" here)`, "hint");
  }
  files.onchange = () => loadReplay(files.value, 0);
  if (path) files.value = path;
  if (files.value) await loadReplay(files.value, index || 0);
}

async function loadReplay(path, index) {
  const asked = (replay.asked = (replay.asked || 0) + 1);
  let data;
  try {
    data = await api("POST", "/api/replay", { path, index });
  } catch (error) {
    if (asked === replay.asked) say(error.message);
    return;
  }
  if (asked !== replay.asked) return; // a later choice is on its way
  say("");
  history.replaceState({}, "", `/?replay=${encodeURIComponent(path)}&index=${index}`);
  replay.data = data;
  replay.board = BOARDS[data.game].create($("replay-board"), { play() {}, preview: async () => null, say() {} });
  $("replay-game").replaceChildren(...data.games.map((g) => new Option(
    `game ${g.index}: ${g.players.join(" vs ")}, ${g.actions} moves, returns ${g.returns.join(" ")}`, g.index)));
  $("replay-game").value = index;
  $("replay-table").hidden = false;
  fillSeats($("replay-seats"), data.seats);
  $("replay-slider").max = data.steps.length;
  $("replay-jump").max = data.steps.length;
  $("replay-steps").replaceChildren(...data.steps.map((step, i) => {
    const item = stepItem(step, data.seats);
    item.dataset.step = i + 1;
    item.onclick = () => replayAt(i + 1);
    return item;
  }));
  document.body.dataset.replay = `${path}#${index}`;
  replayAt(0);
}

function replayAt(at) {
  const data = replay.data;
  replay.at = Math.max(0, Math.min(at, data.steps.length));
  const position = data.positions[replay.at];
  replay.board.update({ position, layout: data.layout, seats: data.seats, legal: [], interactive: false, version: replay.at });
  $("replay-slider").value = replay.at;
  $("replay-jump").value = replay.at;
  document.body.dataset.replayAt = replay.at;
  const step = replay.at ? data.steps[replay.at - 1] : null;
  const done = replay.at === data.steps.length ? ` ${resultText(data.result, data.seats)}` : "";
  $("replay-status").textContent = `move ${replay.at} of ${data.steps.length}` +
    (step ? `: ${step.seat === -1 ? "dice" : `P${step.seat}`} ${step.text}.` : ": the start.") + done;
  for (const item of $("replay-steps").children) {
    item.classList.toggle("current", Number(item.dataset.step) === replay.at);
  }
}

// ---- wiring ---------------------------------------------------------------------------------

function wire() {
  $("room-form").onsubmit = startGame;
  $("undo").onclick = () => table.send("undo", {});
  $("resign").onclick = () => table.resign();
  $("new-game").onclick = () => { history.pushState({}, "", "/"); openRoom(); };
  $("pause").onclick = () => { table.paused = !table.paused; table.update(table.view); };
  $("step").onclick = () => table.send("advance", {});
  $("speed").oninput = () => table.schedule();
  $("analysis-box").ontoggle = () => { if ($("analysis-box").open) table.analyse(); };
  $("replay-form").onsubmit = (event) => { event.preventDefault(); loadReplay($("replay-file").value, Number($("replay-game").value || 0)); };
  $("replay-game").onchange = () => loadReplay($("replay-file").value, Number($("replay-game").value));
  $("replay-first").onclick = () => replayAt(0);
  $("replay-back").onclick = () => replayAt(replay.at - 1);
  $("replay-forward").onclick = () => replayAt(replay.at + 1);
  $("replay-last").onclick = () => replayAt(Infinity);
  $("replay-slider").oninput = () => replayAt(Number($("replay-slider").value));
  $("replay-jump").onchange = () => replayAt(Number($("replay-jump").value));
  window.onpopstate = route;
}

async function route() {
  const params = new URLSearchParams(location.search);
  clearTimeout(table.timer);
  if (params.get("game")) await openGame(params.get("game"));
  else if (params.has("replay")) await openReplay(params.get("replay"), Number(params.get("index") || 0));
  else await openRoom();
  document.body.dataset.ready = "1";
}

wire();
route().catch((error) => say(error.message));
