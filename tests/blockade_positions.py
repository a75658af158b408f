"""Blockade position dicts for tests."""


def with_walls(position: dict, walls) -> dict:
    """``position`` with ``walls`` placed (``[["H", r, c], ...]``), each taken from the players'
    supplies in turn, so that the position stays one a game can reach."""
    position["walls"] = [list(w) for w in walls]
    left = [[9, 9] for _ in range(position["num_players"])]
    for i, (orientation, _, _) in enumerate(walls):
        left[i % len(left)]["VH".index(orientation)] -= 1
    position["walls_left"] = left
    return position
