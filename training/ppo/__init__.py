"""PPO by self-play against an opponent pool: rollouts (:mod:`training.ppo.rollout`) split into
shards any runner plays (:mod:`training.ppo.shards`), shaped rewards
(:mod:`training.ppo.shaping`), the clipped update (:mod:`training.ppo.algorithm`)."""

from training.ppo.algorithm import PPO, PPOConfig

__all__ = ["PPO", "PPOConfig"]
