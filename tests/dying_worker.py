"""A self-play worker whose process dies in the middle of a task, once: the fault that
runner=processes and runner=ray must survive by playing the lost task again."""

import os


class DyingWorker:
    """Dies (as a killed process: no exception, no reply) in the first task holding an item
    for which ``dies_on(item)`` is true, unless the file ``marker`` says it has died already."""

    def __init__(self, make_worker, marker: str, dies_on):
        self.marker, self.dies_on = marker, dies_on
        self.worker = make_worker()

    def start_round(self, work_round):
        self.worker.start_round(work_round)

    def play(self, items):
        if any(self.dies_on(item) for item in items) and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return self.worker.play(items)


def is_seed(seed: int, item) -> bool:
    """AlphaZero: the task with the game of ``seed``."""
    return item == seed


def is_later_shard(index: int, item) -> bool:
    """PPO: a task with shard ``index``, after its first rollout."""
    return item["index"] == index and item["agent_steps"] > 0
