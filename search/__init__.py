"""Tree search over the engine contract of :mod:`envs.core`: plain UCT (``search.uct``) for
network-free agents, and PUCT with batched network evaluation and an optional Gumbel root
(``search.puct``) for AlphaZero. Import the module you need; this package imports nothing."""
