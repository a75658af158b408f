"""The web player in a real browser (headless Chromium via Playwright): complete games of every
game played by clicks alone against agents, with the result checked against the engine, plus
undo, an illegal click, hot seat, a reload, watch mode and the replay of a saved record.

The person's moves are chosen by the game's heuristic (so games end soon) and then made the way a
person makes them: clicking pieces, squares, stations and edges on the SVG board."""

from __future__ import annotations

import json
import urllib.request

import pytest

import envs
from agents.heuristic import HeuristicAgent
from arena.records import GameRecord, replay

BLOCKADE_OFFSETS = [(-1, 0), (1, 0), (0, -1), (0, 1), (-2, 0), (2, 0), (0, -2), (0, 2),
                    (-1, -1), (-1, 1), (1, -1), (1, 1)]
BARRICADE_DELTAS = [(1, 0), (-1, 0), (0, -1), (0, 1)]
SETTLED = """(version) => {
  const b = document.body.dataset;
  return (b.turn === 'human' || b.turn === 'over') && b.busy !== '1' && b.version !== version;
}"""


def blockade_clicks(position: dict, action: int) -> list[tuple[str, str]]:
    p = position["to_move"]
    if action < 24:
        k, offset = divmod(action, 12)
        (r, c), (dr, dc) = position["pawns"][p][k], BLOCKADE_OFFSETS[offset]
        return [("click", f"[data-piece='pawn-{p}-{k}']"),
                ("click", f"[data-cell='{r + dr},{c + dc}']")]
    anchors = (position["rows"] - 1) * (position["cols"] - 1)
    o, rest = divmod(action - 24, anchors)
    r, c = divmod(rest, position["cols"] - 1)
    return [("wall", f"[data-wall='{'VH'[o]},{r + 1},{c + 1}']")]


def barricade_clicks(position: dict, action: int) -> list[tuple[str, str]]:
    p = position["to_move"]
    if action >= 140:
        return [("click", f"[data-piece='scout-{p}-{action - 140}']")]
    if action >= 138:
        return [("click", f"[data-piece='guard-{p}-{action - 138}']")]
    if action >= 12:
        g, i = divmod(action - 12, 63)
        return [("click", f"[data-piece='guard-{p}-{g}']"),
                ("click", f"[data-station='{3 + i // 7},{1 + i % 7}']")]
    s, d = divmod(action, 4)
    (line, file), (dl, df) = position["scouts"][p][s], BARRICADE_DELTAS[d]
    return [("click", f"[data-piece='scout-{p}-{s}']"),
            ("click", f"[data-station='{line + dl},{file + df}']")]


def nobles_clicks(position: dict, action: int, legal: list[int]) -> list[tuple[str, str]]:
    p = position["to_move"]
    if action == 0:
        return [("click", f"[data-piece='noble-{p}']"), ("click", "[data-target]")]
    progress, k = divmod(action - 1, 4)
    counts = [(a - 1) % 4 + 1 for a in legal if a and (a - 1) // 4 == progress]
    clicks = [("click", f"[data-piece='guards-{p}-{progress}']")]
    if k + 1 != min(counts):
        clicks.append(("click", f"[data-count='{k + 1}']"))
    return clicks + [("click", "[data-target]")]


def clicks_for(game: str, view: dict, action: int) -> list[tuple[str, str]]:
    if game == "nobles":
        return nobles_clicks(view["position"], action, [m["action"] for m in view["legal"]])
    return {"blockade": blockade_clicks, "barricade": barricade_clicks}[game](view["position"],
                                                                              action)


class Table:
    """The page of one game, driven by clicks."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url

    def start(self, config: str, settings: dict, seats: list[str], seed: int = 0,
              speed: int = 2000) -> None:
        page = self.page
        page.goto(self.url)
        page.wait_for_selector("body[data-ready='1'][data-room='ready']")
        page.select_option("#room-config", config)
        page.wait_for_selector("body[data-room='ready']")
        if set(settings) - {"num_players"}:
            page.click("#room-settings summary")  # the folded rules settings
        for key, value in settings.items():
            field = page.locator(f"input[data-setting='{key}']")
            field.fill(str(value))
            field.blur()  # the change goes to the server, which answers with the seats
            page.wait_for_selector("body[data-room='ready']")
        for seat, spec in enumerate(seats):
            page.select_option(f".seat-row[data-seat='{seat}'] select", spec)
        page.fill("#room-seed", str(seed))
        page.click("#room-start")
        page.wait_for_selector("body[data-view='table']")
        page.fill("#speed", str(speed))  # 2000: agents move without delay
        if speed == 2000:
            self.settle("")

    @property
    def game_id(self) -> str:
        return self.page.url.split("game=")[1]

    def view(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/api/games/{self.game_id}") as answer:
            return json.load(answer)

    def settle(self, version: str) -> None:
        """Wait until the page shows a version other than ``version`` and a person is to move or
        the game is over."""
        self.page.wait_for_function(SETTLED, arg=version)

    def do(self, clicks: list[tuple[str, str]]) -> None:
        for kind, selector in clicks:
            if kind == "wall":  # off the anchor, where both orientations' edges meet
                vertical = "'V," in selector
                spot = {"x": 7, "y": 8} if vertical else {"x": 8, "y": 7}
                self.page.hover(selector, position=spot)
                wall = selector.split("'")[1]  # the preview line shows before the click
                self.page.wait_for_selector(f"[data-preview='{wall}'][visibility='visible']",
                                            state="attached")
                self.page.click(selector, position=spot)
            else:
                self.page.click(selector)

    def play_out(self, chooser) -> list[int]:
        """Play every person's move with ``chooser(view) -> action`` until the game ends; the
        actions played."""
        played = []
        while True:
            view = self.view()
            if view["result"]:
                return played
            action = chooser(view)
            played.append(action)
            version = self.page.evaluate("document.body.dataset.version")
            self.do(clicks_for(view["game"], view, action))
            self.settle(version)

    def record(self) -> GameRecord:
        with urllib.request.urlopen(f"{self.url}/api/games/{self.game_id}/export.json") as answer:
            return GameRecord(**json.loads(answer.read()))


def heuristic_chooser(env_config: dict):
    game = envs.make_game(env_config)
    agent = HeuristicAgent(game)
    agent.reset(game, 0, 0)
    return lambda view: agent.act(game.state_from_dict(view["position"]))


def check_against_the_engine(table: Table, played: list[int], people: list[int]) -> None:
    """The page's result is the engine's: the record of the game replays to the same returns,
    and the people's actions in it are the ones clicked."""
    view = table.view()
    record = table.record()
    *_, final = replay(record)
    assert final.is_terminal()
    assert record.returns == view["result"]["returns"] == [float(r) for r in final.returns()]
    shown = json.loads(table.page.get_attribute("#status", "data-returns"))
    assert shown == record.returns
    assert "Game over" in table.page.inner_text("#status")
    by_people = [s["action"] for s in view["history"] if s["seat"] in people]
    assert by_people == played


@pytest.mark.parametrize(("config", "settings", "seats"), [
    ("blockade", {"rows": 9, "cols": 9, "max_turns": 60}, ["human", "random"]),
    ("blockade", {"num_players": 4, "rows": 9, "cols": 9, "max_turns": 24},
     ["human", "heuristic", "random", "heuristic"]),
    ("barricade", {"max_turns": 24}, ["human", "heuristic"]),
    ("nobles", {}, ["human", "zoo:nobles_2p"]),  # a zoo agent plays the rules it was trained on
    ("nobles", {"num_players": 4, "max_turns": 24}, ["human", "heuristic", "random", "random"]),
], ids=["blockade-2p-random", "blockade-4p-heuristic", "barricade-heuristic", "nobles-2p-zoo",
        "nobles-4p-heuristic"])
def test_a_complete_game_played_by_clicks(page, live_server, config, settings, seats):
    table = Table(page, live_server.url)
    table.start(config, settings, seats)
    played = table.play_out(heuristic_chooser(table.view()["env_config"]))
    assert played
    check_against_the_engine(table, played, [0])


def test_an_illegal_click_is_refused_with_the_engines_reason_then_undo_and_reload(page,
                                                                                 live_server):
    table = Table(page, live_server.url)
    table.start("blockade", {"rows": 9, "cols": 9}, ["human", "random"])
    for clicks in ([("click", "[data-piece='pawn-0-0']"), ("click", "[data-cell='3,2']")],
                   [("wall", "[data-wall='V,5,5']")]):
        version = page.evaluate("document.body.dataset.version")
        table.do(clicks)
        table.settle(version)
    before = table.view()
    assert ["V", 5, 5] in before["position"]["walls"]
    version = page.evaluate("document.body.dataset.version")
    table.do([("click", "[data-piece='pawn-0-1']"), ("click", "[data-cell='4,3']")])
    table.settle(version)
    moved = table.view()
    page.click("[data-wall='H,5,5']", position={"x": 8, "y": 7})  # crosses the wall Vf6
    page.wait_for_selector("#message:not([hidden])")
    message = page.inner_text("#message")
    assert message.startswith("action 124 (Hf6) is illegal for player 0"), message
    assert table.view() == moved  # nothing changed
    version = page.evaluate("document.body.dataset.version")
    page.click("#undo")
    table.settle(version)
    undone = table.view()
    assert undone["position"] == before["position"] and undone["to_move"] == 0
    page.reload()
    page.wait_for_selector("body[data-ready='1'][data-view='table']")
    assert page.evaluate("document.body.dataset.version") == str(undone["version"])
    assert page.locator("[data-piece='pawn-0-0'].movable").count() == 1


def test_hot_seat_two_people_take_turns_in_one_page(page, live_server):
    table = Table(page, live_server.url)
    table.start("nobles", {}, ["human", "human"], seed=5)
    seats = []
    for _ in range(4):
        view = table.view()
        seats.append(view["to_move"])
        action = view["legal"][-1]["action"]
        version = page.evaluate("document.body.dataset.version")
        table.do(clicks_for("nobles", view, action))
        table.settle(version)
    assert set(seats) == {0, 1}
    assert page.locator("#dice .die").get_attribute("data-value") == \
        str(table.view()["position"]["roll"])


def test_watch_pause_step_and_replay_the_saved_record(page, live_server):
    table = Table(page, live_server.url)
    table.start("nobles", {"max_turns": 30}, ["random", "heuristic"], speed=0)  # 2 s a move
    page.click("#pause")
    page.wait_for_function("document.body.dataset.busy !== '1'")
    paused = page.evaluate("document.body.dataset.version")
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.version") == paused
    page.click("#step")
    page.wait_for_function("(v) => document.body.dataset.version === String(Number(v) + 1) && "
                           "document.body.dataset.busy !== '1'", arg=paused)
    page.fill("#speed", "2000")
    page.click("#pause")  # resumes
    page.wait_for_selector("body[data-turn='over']", timeout=60_000)
    view = table.view()
    with page.expect_download() as download:
        page.click("#export-json")
    assert download.value.suggested_filename.endswith(".json")
    saved = download.value.suggested_filename
    page.goto(f"{live_server.url}/?replay")
    page.wait_for_selector("body[data-ready='1']")
    path = page.get_attribute(f"#replay-file option[value$='{saved}']", "value")
    page.select_option("#replay-file", path)
    page.wait_for_selector(f"body[data-replay='{path}#0']")
    steps = len(view["history"])
    assert page.get_attribute("#replay-slider", "max") == str(steps)
    page.click("#replay-forward")
    page.click("#replay-forward")
    assert page.evaluate("document.body.dataset.replayAt") == "2"
    page.click("#replay-back")
    assert page.evaluate("document.body.dataset.replayAt") == "1"
    assert "dice" in page.inner_text("#replay-status")
    page.fill("#replay-jump", "7")
    page.dispatch_event("#replay-jump", "change")
    assert page.evaluate("document.body.dataset.replayAt") == "7"
    page.click("#replay-last")
    assert "Game over" in page.inner_text("#replay-status")
    roll = page.get_attribute("svg .board-die", "data-roll")
    assert roll == ("" if view["position"]["roll"] is None else str(view["position"]["roll"]))
