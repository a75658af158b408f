"""Self-play training: the AlphaZero loop (:mod:`training.alphazero`) and the machinery any
algorithm shares — typed configs, checkpoints, W&B logging, evaluation hooks and runners."""
