"""Self-play training: the shared loop (:mod:`training.trainer`) that runs an algorithm
(:mod:`training.alphazero`, :mod:`training.ppo`), and what both share — runners, the
opponent pool, rewards, the warm start and its learner, checkpoint files, evaluation during
training, logging."""
