"""Torch-free glue between an encoder and a network's outputs: observations of many positions
in their movers' views, and the index tables that map view actions and relative seats back to
the board (used by :mod:`models.evaluator` and by the exported-network runner
:mod:`agents.onnx_file`, which must not import torch)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ENCODE_MANY_MIN_BATCH = 16
"""Below this many positions a batch is encoded one position at a time: ``encode_many``'s
gathers cost a fixed ~50 us, while ``encode`` serves a position whose walls it has seen from
its wall cache in ~5 us (a batch-1 search encodes one leaf per step)."""


def encode_batch(encoder, states: Sequence, players: Sequence[int]) -> np.ndarray:
    """``[B, *encoder.shape]``: each state in its player's view, through the encoder's
    ``encode_many`` where it has one and the batch is large enough (Blockade: every plane of
    the batch by a few gathers, the distance planes of its new wall layouts from one search)."""
    many = getattr(encoder, "encode_many", None)
    if many is not None and len(states) >= ENCODE_MANY_MIN_BATCH:
        return many(states, players)
    return np.stack([encoder.encode(s, int(p)) for s, p in zip(states, players, strict=True)])


class ViewMaps:
    """Index tables between a player's view and the board, for actions and seats.

    ``board_action = perm[player][view_action]`` (the encoder's permutation); relative seat
    ``k`` of ``player`` is absolute seat ``(player + k) mod n``.
    """

    def __init__(self, encoder, num_players: int):
        self.perms = np.stack([np.asarray(encoder.view_to_board_actions(p), dtype=np.int64)
                               for p in range(num_players)])
        self.inverse = np.argsort(self.perms, axis=1)
        seats = np.arange(num_players)
        self.rel_of_abs = (seats[None, :] - seats[:, None]) % num_players  # [player, abs] -> rel
        self.abs_of_rel = (seats[None, :] + seats[:, None]) % num_players  # [player, rel] -> abs

    def logits_to_board(self, view_logits: np.ndarray, players: np.ndarray) -> np.ndarray:
        return np.take_along_axis(view_logits, self.inverse[players], axis=1)

    def values_to_abs(self, rel_values: np.ndarray, players: np.ndarray) -> np.ndarray:
        return np.take_along_axis(rel_values, self.rel_of_abs[players], axis=1)

    def policy_to_view(self, board_policy: np.ndarray, player: int) -> np.ndarray:
        return board_policy[self.perms[player]]

    def values_to_rel(self, abs_values: np.ndarray, player: int) -> np.ndarray:
        return abs_values[self.abs_of_rel[player]]
