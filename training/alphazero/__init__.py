"""AlphaZero: self-play with search (:mod:`training.alphazero.selfplay`), the samples into the
replay buffer, the learner's steps on them (:mod:`training.alphazero.algorithm`)."""

from training.alphazero.algorithm import AlphaZero, AlphaZeroConfig

__all__ = ["AlphaZero", "AlphaZeroConfig"]
