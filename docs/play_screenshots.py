"""Take the web player's screenshots of docs/play.md: ``python docs/play_screenshots.py``
(needs the dev extra's playwright and Debian's chromium).

Each game is played to the middle by agents (the person's seat by the heuristic, through the
API), then shown in the page at the person's turn with a piece picked and its moves marked:
play_web_blockade.png (4 players), play_web_blockade_wall.png (a wall previewed before it is
placed), play_web_barricade.png (the second half-move of a turn), play_web_nobles.png (4
players, the roll and the analysis panel), play_web_room.png and play_web_replay.png.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

import envs
from agents.heuristic import HeuristicAgent
from ui.settings import PlayConfig
from web.browser import launch_chromium
from web.config import WebConfig
from web.server import Background

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).resolve().parent / "images"


def call(url: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def midgame(url: str, config: str, env: dict, seats: list[str], moves: int,
            until=lambda view: True) -> dict:
    """A game of ``seats`` played ``moves`` person's moves in (chosen by the heuristic), then on
    to the next person's turn for which ``until(view)`` holds."""
    view = call(url, "/api/games", {"config": config, "env": env, "seats": seats, "seed": 1})
    game = envs.make_game(view["env_config"])
    person = HeuristicAgent(game)
    person.reset(game, 0, 1)
    played = 0
    while not view["result"]:
        path = f"/api/games/{view['id']}"
        if not view["seats"][view["to_move"]]["human"]:
            view = call(url, path + "/advance", {"version": view["version"]})
            continue
        if played >= moves and until(view):
            return view
        action = person.act(game.state_from_dict(view["position"]))
        view = call(url, path + "/move", {"action": action, "version": view["version"]})
        played += 1
    raise RuntimeError(f"{config} ended before the screenshot")


def show(page, url: str, view: dict) -> None:
    page.goto(f"{url}/?game={view['id']}")
    page.wait_for_selector("body[data-ready='1'][data-turn='human']")


def shoot(page, name: str) -> None:
    page.screenshot(path=OUT / name, full_page=True)
    print(f"wrote {OUT / name}")


def main() -> None:
    os.chdir(tempfile.mkdtemp())  # an empty outputs/ folder of its own, shown as outputs/...
    Path("outputs").mkdir()
    config = WebConfig(PlayConfig(), {"name": "nobles"}, "nobles", str(ROOT / "configs" / "env"))
    server = Background(config)
    url = server.url
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1180, "height": 760})
            page.goto(url)
            page.wait_for_selector("body[data-ready='1'][data-room='ready']")
            field = page.locator("input[data-setting='num_players']")
            field.fill("4")
            field.blur()
            page.wait_for_selector("body[data-room='ready']")
            page.select_option(".seat-row[data-seat='3'] select", "zoo:nobles_4p")
            shoot(page, "play_web_room.png")

            view = midgame(url, "blockade", {"num_players": 4},
                           ["human", "heuristic", "random", "mcts"], 8,
                           lambda v: v["position"]["phase"] == "move")
            show(page, url, view)
            page.click(".pawn.movable >> nth=0")
            page.wait_for_selector("[data-target]", state="attached")
            shoot(page, "play_web_blockade.png")

            view = midgame(url, "blockade_lakeside", {}, ["human", "zoo:blockade_lakeside_2p"],
                           9, lambda v: v["position"]["phase"] == "wall")
            show(page, url, view)
            legal = {m["text"] for m in view["legal"]}
            wall = next(f"V,{r},{c}" for r in range(5, 12) for c in range(3, 9)
                        if f"V{'abcdefghijk'[c]}{r + 1}" in legal)
            page.hover(f"[data-wall='{wall}']", position={"x": 7, "y": 8})
            shoot(page, "play_web_blockade_wall.png")

            view = midgame(url, "barricade", {}, ["human", "zoo:barricade_2p"], 9,
                           lambda v: v["position"]["half"] == 1)
            show(page, url, view)
            page.click("g.movable[data-piece^='scout'] >> nth=0")
            shoot(page, "play_web_barricade.png")

            view = midgame(url, "nobles", {"num_players": 4},
                           ["human", "heuristic", "random", "zoo:nobles_4p"], 6,
                           lambda v: len(v["legal"]) > 2)
            show(page, url, view)
            page.click("#analysis-box summary")
            page.wait_for_selector(".top-moves li")
            page.click(".piece.movable >> nth=-1")
            page.wait_for_selector("[data-target]")
            page.wait_for_timeout(800)  # the die has stopped rolling
            shoot(page, "play_web_nobles.png")

            call(url, f"/api/games/{view['id']}/export.json")
            page.goto(f"{url}/?replay")
            page.wait_for_selector("body[data-ready='1'][data-replay]")
            page.fill("#replay-jump", "12")
            page.dispatch_event("#replay-jump", "change")
            shoot(page, "play_web_replay.png")
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
