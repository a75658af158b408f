"""The bridge between a network and search: encode states in the mover's view, run the network
on the batch, and map its outputs back to board actions and absolute seats."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch


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


class NetworkEvaluator:
    """``evaluate(states) -> (board logits [B, A], absolute values [B, n])`` for search."""

    def __init__(self, net: torch.nn.Module, encoder, num_players: int):
        self.net = net
        self.encoder = encoder
        self.maps = ViewMaps(encoder, num_players)
        self.batches = 0
        self.positions = 0

    def encode(self, states: Sequence) -> tuple[np.ndarray, np.ndarray]:
        players = np.array([s.current_player() for s in states], dtype=np.int64)
        obs = np.stack([self.encoder.encode(s, int(p)) for s, p in zip(states, players,
                                                                        strict=True)])
        return obs, players

    def __call__(self, states: Sequence) -> tuple[np.ndarray, np.ndarray]:
        obs, players = self.encode(states)
        self.net.eval()
        with torch.inference_mode():
            logits, values = self.net(torch.from_numpy(obs))
        self.batches += 1
        self.positions += len(states)
        return (self.maps.logits_to_board(logits.numpy(), players),
                self.maps.values_to_abs(values.numpy().astype(np.float64), players))
