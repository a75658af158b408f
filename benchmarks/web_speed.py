"""Web player speed (``python play.py ui=web``), measured against the running server as a
person meets it, with targets from issue 40:

- page ready: from navigation to the page having drawn what it shows (``body[data-ready]``),
  the room and a game's table (target: under 1 s);
- a person's move: from the click on a legal move to the board redrawn with the server's answer
  (target: under 100 ms), and the same move's API round trip alone;
- an agent's move at its default budget: the ``advance`` request (the agent thinks, the server
  answers the new position) for every agent kind on every game (target: within 1 s).

    python benchmarks/web_speed.py              # needs the dev extra (playwright) and chromium
    python benchmarks/web_speed.py --moves 10

The server runs as ``play.py`` runs it, in its own process; the browser is Debian's Chromium.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rich.console import Console
from rich.table import Table

from web.browser import launch_chromium

ROOT = Path(__file__).resolve().parents[1]
GAMES = [
    ("blockade", {}, ["random", "heuristic", "mcts", "zoo:blockade_2p"]),
    ("blockade_lakeside", {}, ["zoo:blockade_lakeside_2p"]),
    ("barricade", {}, ["random", "heuristic", "mcts", "zoo:barricade_2p"]),
    ("nobles", {}, ["random", "heuristic", "mcts", "zoo:nobles_2p"]),
    ("nobles", {"num_players": 4}, ["heuristic", "mcts", "zoo:nobles_4p"]),
]


def start_server() -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen([sys.executable, "play.py", "ui=web", "port=0", "web.max_games=100"],
                              cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if not line.startswith("web player on "):
        server.kill()
        sys.exit(f"the server did not start: {line!r}")
    return server, line.split()[3]


def call(url: str, path: str, body: dict | None = None) -> tuple[dict, float]:
    """The JSON answer of one request and its round-trip seconds."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data,
                                     headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request) as answer:
        result = json.load(answer)
    return result, time.perf_counter() - start


def new_game(url: str, config: str, env: dict, seats: list[str]) -> dict:
    return call(url, "/api/games", {"config": config, "env": env, "seats": seats})[0]


def page_ready(page, address: str, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        page.goto(address)
        page.wait_for_selector("body[data-ready='1']")
        times.append(time.perf_counter() - start)
    return times


def human_moves(page, url: str, config: str, env: dict, moves: int) -> tuple[list, list]:
    """Click-to-redraw and API times of ``moves`` moves of a hot-seat game (every seat a person),
    each the first legal move, clicked in the page's list of legal moves."""
    view = new_game(url, config, env, ["human"] * (env.get("num_players") or 2))
    page.goto(f"{url}/?game={view['id']}")
    page.wait_for_selector("body[data-ready='1']")
    page.click("#moves-box summary")
    clicked, answered = [], []
    for _ in range(moves):
        version = page.evaluate("document.body.dataset.version")
        action = page.get_attribute("#moves button", "data-move")
        start = time.perf_counter()
        page.click(f"#moves button[data-move='{action}']")
        page.wait_for_function("(v) => document.body.dataset.version !== v && "
                               "document.body.dataset.busy !== '1'", arg=version)
        clicked.append(time.perf_counter() - start)
    view = call(url, f"/api/games/{view['id']}")[0]
    for _ in range(moves):
        if view["result"]:
            break
        view, seconds = call(url, f"/api/games/{view['id']}/move",
                             {"action": view["legal"][0]["action"], "version": view["version"]})
        answered.append(seconds)
    return clicked, answered


def agent_moves(url: str, config: str, env: dict, spec: str, moves: int) -> list[float]:
    view = new_game(url, config, env, [spec] * (env.get("num_players") or 2))
    times = []
    while len(times) < moves and not view["result"]:
        view, seconds = call(url, f"/api/games/{view['id']}/advance",
                             {"version": view["version"]})
        times.append(seconds)
    return times


def ms(times: list[float]) -> str:
    return f"{1000 * statistics.median(times):.0f} / {1000 * max(times):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=8, help="moves timed per game and agent")
    parser.add_argument("--runs", type=int, default=5, help="page loads timed per page")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server, url = start_server()
    console = Console()
    try:
        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            pages = Table(title="page ready, ms (median / max)")
            pages.add_column("page")
            pages.add_column("first load")
            pages.add_column(f"reloads ({args.runs})")
            room = page_ready(page, url + "/", args.runs + 1)
            pages.add_row("room", f"{1000 * room[0]:.0f}", ms(room[1:]))
            for config, env, _ in GAMES[2:4]:
                game = new_game(url, config, env, ["human", "random"])
                times = page_ready(page, f"{url}/?game={game['id']}", args.runs + 1)
                pages.add_row(f"{config} table", f"{1000 * times[0]:.0f}", ms(times[1:]))
            console.print(pages)
            people = Table(title="a person's move, ms (median / max)")
            for column in ("game", "click to board redrawn", "API round trip"):
                people.add_column(column)
            for config, env, _ in GAMES:
                clicked, answered = human_moves(page, url, config, env, args.moves)
                label = f"{config} {env.get('num_players', 2)}p"
                people.add_row(label, ms(clicked), ms(answered))
            console.print(people)
            browser.close()
        agents = Table(title="an agent's move at its default budget, ms (median / max)")
        for column in ("game", "agent", "advance request"):
            agents.add_column(column)
        for config, env, specs in GAMES:
            for spec in specs:
                times = agent_moves(url, config, env, spec, args.moves)
                agents.add_row(f"{config} {env.get('num_players', 2)}p", spec, ms(times))
        console.print(agents)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
