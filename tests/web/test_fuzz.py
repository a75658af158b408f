"""Random bodies posted to every endpoint of the web player: each is answered (2xx, or 4xx with
a one-line reason), never a 500, and the server keeps serving."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webtools import create

SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | \
    st.floats(allow_nan=False) | st.text(max_size=30)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
KEYS = st.sampled_from(["config", "env", "seats", "seed", "hint_agent", "action", "version",
                        "seat", "path", "index"])
VALUES = st.sampled_from(["nobles", "blockade", "barricade", "human", "random", "../x",
                          "/etc/passwd", "mcts:simulations=2", "zoo:nobles_2p"]) | SCALARS | \
    st.lists(st.sampled_from(["human", "random", "heuristic", "x"]), max_size=5) | \
    st.dictionaries(st.sampled_from(["num_players", "rows", "max_turns", "variant", "mode"]),
                    st.sampled_from(["2", "4", "9", "0", "capture", "x", 3, -1]), max_size=3)
PLAUSIBLE = st.dictionaries(KEYS, VALUES, max_size=5)
BODIES = st.one_of(JSON.map(lambda v: json.dumps(v).encode()), PLAUSIBLE.map(
    lambda v: json.dumps(v).encode()), st.binary(max_size=200))
ROUTES = ["/api/setup", "/api/games", "/api/replay", "/api/games/{id}/move",
          "/api/games/{id}/advance", "/api/games/{id}/undo", "/api/games/{id}/resign",
          "/api/games/{id}/preview", "/api/games/nope/move"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(ROUTES), body=BODIES)
def test_random_bodies_get_an_answer_never_a_server_error(client, route, body):
    games = client.app.state.server.store
    if not len(games):
        create(client, {"config": "nobles", "env": {}}, ["human", "random"])
    game_id = next(iter(games._games))
    answer = client.post(route.format(id=game_id), content=body,
                         headers={"Content-Type": "application/json"})
    assert answer.status_code < 500, (route, body, answer.text)
    if answer.status_code >= 400:
        assert "\n" not in answer.json()["error"]
    assert client.get(f"/api/games/{game_id}").status_code in (200, 404)
