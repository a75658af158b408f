"""A self-play worker whose process dies in the middle of one seed's task, once: the fault that
runner=processes and runner=ray must survive by replaying the lost games."""

import os


class DyingWorker:
    def __init__(self, make_worker, marker: str, seed: int):
        self.marker, self.seed = marker, seed
        self.worker = make_worker()

    def start_round(self, selfplay_round):
        self.worker.start_round(selfplay_round)

    def play(self, seeds):
        if self.seed in seeds and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)  # as a killed process: no exception, no reply
        return self.worker.play(seeds)
