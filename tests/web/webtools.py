"""Helpers of the web player's tests: API calls that must succeed."""

from __future__ import annotations


def post(client, url: str, **body) -> dict:
    answer = client.post(url, json=body)
    assert answer.status_code < 300, (url, body, answer.text)
    return answer.json()


def create(client, config: dict, seats: list[str], seed: int = 0) -> dict:
    return post(client, "/api/games", **config, seats=seats, seed=seed)
