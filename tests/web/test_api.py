"""The web player's JSON API: games played, refused moves with the engine's reason, undo,
resign, exports, replays, the cap on live games, shared networks, and files outside the
allowed folders never reached."""

from __future__ import annotations

import json
import time

import pytest
from conftest import make_config
from starlette.testclient import TestClient
from webtools import create, post

import envs
from arena.records import load_records, replay
from envs.core import IllegalActionError
from web.app import create_app

BLOCKADE_9 = {"config": "blockade", "env": {"rows": "9", "cols": "9", "max_turns": "40"}}


def test_a_game_is_played_move_by_move_and_survives_a_reload(client):
    view = create(client, BLOCKADE_9, ["human", "heuristic"])
    assert view["version"] == 0 and view["to_move"] == 0 and view["result"] is None
    assert {m["text"] for m in view["legal"]} >= {"c3-c5", "d4-d5"}
    action = next(m["action"] for m in view["legal"] if m["text"] == "c3-c5")
    after = post(client, f"/api/games/{view['id']}/move", action=action, version=0)
    assert after["version"] == 1 and after["position"]["pawns"][0][0] == [4, 2]
    assert after["position"]["phase"] == "wall" and after["history"][-1]["text"] == "c3-c5"
    assert client.get(f"/api/games/{view['id']}").json() == after  # a reload sees the same


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing(client):
    view = create(client, BLOCKADE_9, ["human", "heuristic"])
    game = envs.make_game({"name": "blockade", "rows": 9, "cols": 9})
    state = game.new_initial_state()
    onto_own_pawn = state.string_to_action("c3-d4")
    answer = client.post(f"/api/games/{view['id']}/move",
                         json={"action": onto_own_pawn, "version": 0})
    assert answer.status_code == 422
    with pytest.raises(IllegalActionError) as engine:
        state.apply_action(onto_own_pawn)
    assert answer.json()["error"] == str(engine.value)
    assert client.get(f"/api/games/{view['id']}").json() == view


def test_turns_versions_agents_undo_and_resign(client):
    view = create(client, BLOCKADE_9, ["human", "random"])
    game_id = view["id"]
    first = view["legal"][0]["action"]
    stale = client.post(f"/api/games/{game_id}/move", json={"action": first, "version": 5})
    assert stale.status_code == 409 and "moved on" in stale.json()["error"]
    move = post(client, f"/api/games/{game_id}/move", action=first, version=0)
    wall = post(client, f"/api/games/{game_id}/move", action=move["legal"][0]["action"],
                version=1)
    assert wall["to_move"] == 1
    refused = client.post(f"/api/games/{game_id}/move",
                          json={"action": wall["legal"][0]["action"]})
    assert refused.status_code == 409 and "random" in refused.json()["error"]
    replied = post(client, f"/api/games/{game_id}/advance", version=2)
    replied = post(client, f"/api/games/{game_id}/advance", version=3)
    assert replied["to_move"] == 0 and len(replied["history"]) == 4
    back = post(client, f"/api/games/{game_id}/undo", version=4)
    assert back["position"] == move["position"] and len(back["history"]) == 1  # before the wall
    over = post(client, f"/api/games/{game_id}/resign", seat=0, version=5)
    assert over["result"]["resigned"] == 0 and over["result"]["winners"] == [1]
    assert over["legal"] == [] and not over["can_undo"]
    late = client.post(f"/api/games/{game_id}/move", json={"action": first})
    assert late.status_code == 409 and late.json()["error"] == "the game is over"


def test_dice_are_rolled_by_the_server_and_shown_as_steps(client):
    view = create(client, {"config": "nobles", "env": {"num_players": 4}},
                  ["human", "random", "random", "random"], seed=3)
    assert view["history"][0]["seat"] == -1 and view["history"][0]["text"].startswith("roll ")
    assert view["position"]["roll"] == int(view["history"][0]["text"].split()[1])
    assert view["layout"]["seats"] == [0, 1, 2, 3] and len(view["layout"]["track"]) == 52
    again = create(client, {"config": "nobles", "env": {"num_players": 4}},
                   ["human", "random", "random", "random"], seed=3)
    assert again["history"] == view["history"]  # the seed fixes the dice


def test_exports_write_a_record_that_replays_and_a_gif_inside_the_exports_folder(client,
                                                                                  outputs):
    view = create(client, {"config": "barricade", "env": {}}, ["random", "random"])
    for version in range(6):
        view = post(client, f"/api/games/{view['id']}/advance", version=version)
    answer = client.get(f"/api/games/{view['id']}/export.json")
    assert answer.status_code == 200
    (record,) = load_records(next((outputs / "play").glob("*.json")))
    assert record.actions == [step["action"] for step in view["history"]]
    *_, final = replay(record)
    assert final.to_dict() == view["position"]
    gif = client.get(f"/api/games/{view['id']}/export.gif")
    assert gif.status_code == 200 and gif.content[:6] == b"GIF89a"
    assert client.get(f"/api/games/{view['id']}/export.txt").status_code == 404


def test_a_record_file_in_the_folders_is_listed_and_replayed(client, outputs):
    view = create(client, {"config": "nobles", "env": {}}, ["random", "heuristic"])
    for version in range(5):
        view = post(client, f"/api/games/{view['id']}/advance", version=version)
    client.get(f"/api/games/{view['id']}/export.json")
    (name,) = client.get("/api/catalog").json()["records"]
    shown = post(client, "/api/replay", path=name, index=0)
    assert shown["positions"][-1] == view["position"]
    assert [s["text"] for s in shown["steps"]] == [s["text"] for s in view["history"]]
    assert shown["games"][0]["players"] == ["random", "heuristic"]
    beyond = client.post("/api/replay", json={"path": name, "index": 1})
    assert beyond.status_code == 400 and "games 0..0" in beyond.json()["error"]


def test_no_file_outside_the_allowed_folders_is_read(client, outputs, tmp_path):
    secret = tmp_path / "secret.jsonl"
    secret.write_text('{"env_config": {"name": "nobles"}}\n')
    (outputs / "link.jsonl").symlink_to(secret)  # a link out of the folder is not listed
    for path in (str(secret), "../secret.jsonl", str(outputs / "link.jsonl"),
                 str(outputs / ".." / "secret.jsonl"), "/etc/passwd"):
        answer = client.post("/api/replay", json={"path": path})
        assert answer.status_code == 400 and "not one of the record files" in answer.json()["error"]
    assert client.get("/api/catalog").json()["records"] == []
    for spec in (f"checkpoint:{secret}", "onnx:../../zoo/nobles_2p/policy.onnx",
                 "checkpoint:/etc/passwd"):
        answer = client.post("/api/games", json={"config": "nobles", "seats": ["human", spec]})
        assert answer.status_code == 400 and "is not one of the" in answer.json()["error"]


def test_zoo_networks_load_once_and_each_seat_plays_a_fork(client):
    server = client.app.state.server
    setup = post(client, "/api/setup", config="nobles", env={})
    assert "zoo:nobles_2p" in setup["agents"] and "zoo:nobles_4p" not in setup["agents"]
    create(client, {"config": "nobles", "env": {}}, ["zoo:nobles_2p", "zoo:nobles_2p"])
    create(client, {"config": "nobles", "env": {}}, ["human", "zoo:nobles_2p"])
    assert len(server.agents._networks) == 1
    games = list(server.store._games.values())
    seats = [agent for live in games for agent in live.agents if agent is not None]
    assert len(seats) == 3 and len({id(agent) for agent in seats}) == 3
    assert len({agent.evaluate for agent in seats}) == 1
    hint = client.get(f"/api/games/{games[1].id}/analysis").json()
    assert hint["label"] == "zoo:nobles_2p" and len(hint["values"]) == 2
    assert all(0 <= m["probability"] <= 1 for m in hint["moves"])


def test_live_games_are_capped_and_dropped_when_idle(outputs, monkeypatch):
    client = TestClient(create_app(make_config(outputs, max_games=2, idle_minutes=1)),
                        base_url="http://127.0.0.1")
    first = create(client, BLOCKADE_9, ["human", "random"])
    create(client, BLOCKADE_9, ["human", "random"])
    full = client.post("/api/games", json={**BLOCKADE_9, "seats": ["human", "random"]})
    assert full.status_code == 429 and "2 games are live" in full.json()["error"]
    later = time.monotonic() + 61
    monkeypatch.setattr(time, "monotonic", lambda: later)
    assert client.get(f"/api/games/{first['id']}").status_code == 404
    create(client, BLOCKADE_9, ["human", "random"])


def test_bad_requests_are_one_line_4xx(client):
    view = create(client, BLOCKADE_9, ["human", "heuristic"])
    game = f"/api/games/{view['id']}"
    cases = [
        ("post", game + "/move", b"{not json", "malformed JSON"),
        ("post", game + "/move", b"[1, 2]", "must be a JSON object"),
        ("post", game + "/move", json.dumps({"action": 10**6}).encode(), "action must be"),
        ("post", game + "/move", json.dumps({"action": True}).encode(), "action must be"),
        ("post", game + "/move", json.dumps({"act": 1}).encode(), "unknown field"),
        ("post", game + "/move", b"{}", "missing field"),
        ("post", "/api/games/nope/move", b'{"action": 1}', "no live game"),
        ("post", "/api/games", json.dumps({"config": "chess", "seats": []}).encode(),
         "unknown env config"),
        ("post", "/api/games", json.dumps({"config": "nobles", "seats": ["human", "alphabeta"]}
                                          ).encode(), "unknown agent"),
        ("post", "/api/games", json.dumps({"config": "nobles", "seats": ["human"]}).encode(),
         "needs 2 seats"),
        ("post", "/api/games", json.dumps({"config": "nobles", "env": {"num_players": 7},
                                           "seats": ["human"]}).encode(), "num_players"),
        ("post", "/api/games", json.dumps({"config": "nobles", "env": {"colour": 1},
                                           "seats": ["human"]}).encode(), "no setting 'colour'"),
        ("post", "/api/games", json.dumps({"config": "nobles", "seats": [
            "human", "mcts:simulations=abc"]}).encode(), "mcts"),
        ("post", "/api/games", b"{" + b" " * 20000 + b"}", "larger than"),
        ("post", game + "/resign", b'{"seat": 1}', "not a person"),
    ]
    for method, path, body, reason in cases:
        answer = getattr(client, method)(path, content=body,
                                         headers={"Content-Type": "application/json"})
        assert 400 <= answer.status_code < 500, (path, body[:60], answer.text)
        error = answer.json()["error"]
        assert reason in error and "\n" not in error, (reason, error)
    plain = client.post(game + "/move", content=b'{"action": 1}',
                        headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415  # what another site's page could send without asking
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
