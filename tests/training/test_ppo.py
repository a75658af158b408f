"""PPO: the loss and GAE on hand-computed batches, masked sampling, the rollout's reward
bookkeeping (outcomes, potential-based shaping, seat chains), and tiny end-to-end runs on every
game that train, checkpoint, resume exactly and evaluate."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir
from hypothesis import given, settings
from hypothesis import strategies as st
from tiny_games import RaceEncoder, RaceGame

import envs
from agents.network import checkpoint_agent
from envs import blockade
from envs.blockade.distances import race_distances as blockade_race_distances
from envs.blockade.distances import walk_distances
from models.checkpoint import load_checkpoint
from models.nets import ModelConfig, build_network
from training.launch import run
from training.learner import masked_log_policy
from training.pool import OpponentPool, PoolConfig
from training.ppo.algorithm import LossConfig, ppo_loss
from training.ppo.rollout import Batch, Rollout, RolloutConfig, gae, sample_masked
from training.ppo.shaping import Potential, ShapingConfig
from training.rewards import Outcomes, RewardConfig

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
LN2 = math.log(2)

# -- the loss ---------------------------------------------------------------------------------


def hand_batch():
    """Two samples. 0: legal {0, 1} of 3, uniform -> p(a=0) = 1/2, old 0.4 -> ratio 1.25,
    advantage +1. 1: logits (ln 2, 0, 0) -> p(a=1) = 1/4, old 1/2 -> ratio 0.5, advantage -2."""
    return dict(
        logits=torch.tensor([[0.0, 0.0, 5.0], [LN2, 0.0, 0.0]], requires_grad=True),
        values=torch.tensor([0.5, -0.3], requires_grad=True),
        mask=torch.tensor([[True, True, False], [True, True, True]]),
        action=torch.tensor([0, 1]),
        old_logp=torch.log(torch.tensor([0.4, 0.5])),
        old_value=torch.tensor([0.2, -0.2]),
        advantages=torch.tensor([1.0, -2.0]),
        returns=torch.tensor([1.0, -1.0]))


def test_ppo_loss_matches_a_hand_computed_batch():
    b = hand_batch()
    config = LossConfig(clip_coef=0.2, vf_coef=0.5, ent_coef=0.01, norm_adv=False)
    loss, stats = ppo_loss(**b, config=config)
    # Policy: max(-A r, -A clip(r)) = max(-1.25, -1.2) = -1.2 and max(1.0, 1.6) = 1.6.
    assert stats["loss/policy"] == pytest.approx((-1.2 + 1.6) / 2)
    # Value, clipped: sample 0 moves 0.2 -> 0.5 but counts as 0.4: max(0.25, 0.36); sample 1
    # moves by -0.1 (inside the clip): 0.49. Half the mean.
    assert stats["loss/value"] == pytest.approx(0.5 * (0.36 + 0.49) / 2)
    # Entropy over legal actions: ln 2 (the masked logit 5.0 counts for nothing) and 1.5 ln 2.
    assert stats["loss/entropy"] == pytest.approx(1.25 * LN2)
    assert loss.item() == pytest.approx(0.2 - 0.01 * 1.25 * LN2 + 0.5 * 0.2125)
    kl = ((0.25 - math.log(1.25)) + (-0.5 + LN2)) / 2
    assert stats["ppo/approx_kl"] == pytest.approx(kl)
    assert stats["ppo/clip_fraction"] == 1.0
    loss.backward()
    assert b["logits"].grad[0, 2] == 0.0  # an illegal action's logit gets no gradient
    # Both ratios are clipped on the side that stops the update: no policy gradient at all.
    torch.testing.assert_close(b["logits"].grad, _entropy_grad_only())


def _entropy_grad_only():
    """The gradient the entropy term alone puts on the hand batch's logits."""
    b = hand_batch()
    log_p = masked_log_policy(b["logits"], b["mask"])
    entropy = -(log_p.exp() * log_p.masked_fill(~b["mask"], 0.0)).sum(1).mean()
    (-0.01 * entropy).backward()
    return b["logits"].grad


def test_ppo_loss_without_value_clipping_and_with_advantage_normalisation():
    b = hand_batch()
    _, stats = ppo_loss(**b, config=LossConfig(clip_vloss=False, norm_adv=False))
    assert stats["loss/value"] == pytest.approx(0.5 * (0.25 + 0.49) / 2)
    # Normalised, advantages (1, -2) become (1, -1): max(-1.25, -1.2) and max(0.5, 0.8).
    _, stats = ppo_loss(**hand_batch(), config=LossConfig(norm_adv=True))
    assert stats["loss/policy"] == pytest.approx((-1.2 + 0.8) / 2, abs=1e-6)


def test_unclipped_ratio_moves_the_policy_towards_positive_advantages():
    b = hand_batch()
    b["old_logp"] = torch.log(torch.tensor([0.5, 0.25]))  # ratio 1: inside the clip
    loss, _ = ppo_loss(**b, config=LossConfig(ent_coef=0.0, vf_coef=0.0, norm_adv=False))
    loss.backward()
    grad = b["logits"].grad
    assert grad[0, 0] < 0 < grad[0, 1]  # descent raises the action with advantage +1
    assert grad[1, 1] > 0  # and lowers the one with advantage -2


# -- GAE --------------------------------------------------------------------------------------


def test_gae_follows_each_seats_chain():
    """Two games, three steps (j = 2 * step + game). Game 0 holds two learner seats: 0 -> 4 and
    2 (cut by the rollout end); game 1: 1 ends the game, then 3 -> 5, which ends it again."""
    batch = Batch.empty(6, (1,), 2)
    batch.reward[:] = [0, 1, 0, 0, 0, -1]
    batch.value[:] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    batch.next_index[:] = [4, -1, -1, 5, -1, -1]
    batch.done[:] = [False, True, False, False, False, True]
    batch.bootstrap[[2, 4]] = [0.4, 0.8]
    adv, returns = gae(batch, gamma=0.9, lam=0.5, num_envs=2)
    expected = {4: 0.72 - 0.5, 5: -1.6, 2: 0.36 - 0.3, 3: 0.54 - 0.4 + 0.45 * -1.6, 1: 0.8}
    expected[0] = 0.45 - 0.1 + 0.45 * expected[4]
    np.testing.assert_allclose(adv, [expected[j] for j in range(6)], atol=1e-6)
    np.testing.assert_allclose(returns, adv + batch.value)


# -- masked sampling ----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40))
def test_masked_sampling_never_draws_an_illegal_action(seed, num_actions):
    rng = np.random.default_rng(seed)
    mask = rng.random((16, num_actions)) < 0.3
    mask[np.arange(16), rng.integers(num_actions, size=16)] = True  # a decision has a move
    logits = rng.normal(0, 3, (16, num_actions))
    logits[~mask] = 1e4  # the network loves exactly the illegal actions
    log_policy = masked_log_policy(torch.tensor(logits, dtype=torch.float32),
                                   torch.from_numpy(mask)).numpy()
    for _ in range(20):
        actions = sample_masked(log_policy, rng)
        assert mask[np.arange(16), actions].all()


def test_masked_sampling_follows_the_policy():
    logits = torch.tensor([[0.0, LN2, 9.0, 0.0]])
    mask = torch.tensor([[True, True, False, True]])
    log_policy = masked_log_policy(logits, mask).numpy()
    rng = np.random.default_rng(0)
    draws = np.concatenate([sample_masked(np.repeat(log_policy, 1000, 0), rng)
                            for _ in range(20)])
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, [0.25, 0.5, 0.0, 0.25], atol=0.015)


# -- rollout bookkeeping ------------------------------------------------------------------------


class PositionPotential:
    """phi_p = 0.1 * position of p: readable back from a RaceEncoder observation."""

    def __call__(self, states):
        return 0.1 * np.array([s.positions for s in states], dtype=np.float64)


def race_rollout(potential=None, gamma=0.9, learner_seats=1, players=2, seed=0,
                 baseline=None):
    game = RaceGame(num_players=players, length=5, max_turns=30)
    encoder = RaceEncoder(game)

    def make_net():
        torch.manual_seed(seed)
        return build_network(encoder.shape, 3, players,
                             ModelConfig(kind="mlp", hidden=8, blocks=1)).eval()

    net = make_net()
    pool = OpponentPool(PoolConfig() if baseline is None else
                        PoolConfig(baselines=("baseline",), baseline_share=1.0))
    pool.add(net.state_dict(), 0)
    rewards = RewardConfig(adjudication="none")
    potential = potential or Potential(game, ShapingConfig(), rewards)
    return Rollout(game, encoder, net, pool, RolloutConfig(num_steps=12,
                                                           learner_seats=learner_seats), 6,
                   Outcomes(game, rewards), potential, gamma, np.random.default_rng(seed),
                   make_net, None if baseline is None else lambda spec, game: baseline())


def test_rollout_rewards_are_outcomes_and_shaping_is_potential_based():
    plain, plain_episodes, _ = race_rollout().collect()
    shaped, episodes, _ = race_rollout(PositionPotential()).collect()
    # Rewards do not steer sampling: both rollouts play the same games.
    np.testing.assert_array_equal(plain.action, shaped.action)
    np.testing.assert_array_equal(plain.obs, shaped.obs)
    assert plain.mask[np.arange(len(plain.action)), plain.action].all()
    # Without shaping only a game's end pays: the learner's engine return (+1 / -1 / 0).
    assert not plain.reward[~plain.done].any()
    assert set(plain.reward[plain.done]) <= {1.0, -1.0, 0.0}
    assert len(plain_episodes) == len(episodes) == plain.done.sum() > 0
    # With shaping, each transition gains gamma * phi(next decision) - phi(now), phi(end) = 0;
    # phi is read from the mover's own plane of the observation.
    phi = 0.1 * plain.obs[:, 0, 0, :].argmax(axis=1)
    linked = plain.next_index >= 0
    expected = plain.reward - phi
    expected[linked] += 0.9 * phi[plain.next_index[linked]]
    cut = ~linked & ~plain.done
    np.testing.assert_allclose(shaped.reward[~cut], expected[~cut], atol=1e-6)


class SeededAgent:
    """Plays a legal action drawn from its per-game generator (an agent one at a time)."""

    name = "seeded"

    def reset(self, game, player, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, state):
        return int(self.rng.choice(state.legal_actions()))


class BatchedSeededAgent(SeededAgent):
    """The same moves answered together (agents.base.BatchingAgent), recording each batch."""

    def __init__(self, batches=None):
        self.batches = [] if batches is None else batches

    def fork(self):
        return BatchedSeededAgent(self.batches)

    def act_batch(self, forks, states):
        self.batches.append(len(states))
        return [fork.act(state) for fork, state in zip(forks, states, strict=True)]


def test_a_batching_baseline_answers_its_games_together_with_the_same_moves():
    """An opponent seat held by a network agent is answered for all games at once
    (``act_batch``: one search, one network batch per step), and the rollout is the one its
    game-by-game ``act`` gives."""
    batches = []
    one_by_one = race_rollout(baseline=SeededAgent).collect()
    together = race_rollout(baseline=lambda: BatchedSeededAgent(batches)).collect()
    assert max(batches) == 6  # all six games' opponents at once
    for field in ("obs", "action", "reward", "done", "next_index"):
        np.testing.assert_array_equal(getattr(one_by_one[0], field), getattr(together[0], field))
    assert [e.opponent for e in one_by_one[1]] == [e.opponent for e in together[1]] != []


def test_learner_on_every_seat_chains_each_seat_separately():
    batch, episodes, _ = race_rollout(learner_seats=2).collect()
    linked = batch.next_index >= 0
    # Turns alternate: a seat's next decision in the same game is two rows later.
    assert (batch.next_index[linked] - np.flatnonzero(linked) == 2 * 6).all()
    assert all(e.opponent is None for e in episodes)
    # A finished game closes both seats' chains: two done transitions per game.
    assert batch.done.sum() == 2 * len(episodes)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([2, 3, 4]), st.sampled_from(["both", "any"]))
def test_cached_blockade_race_matches_single_searches(seed, players, win_condition):
    """The race distances (read from the goal-distance maps cached per wall layout, which the
    shaping potential uses at every decision) equal one plain search per goal square."""
    game = blockade.Game(num_players=players, win_condition=win_condition)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(rng.integers(0, 120)):  # random walls and walks, walled-in pawns included
        if state.is_terminal():
            break
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
        expected = []
        for p in range(players):
            near, far = (walk_distances(game, state, [g]) for g in sorted(game.goal_cells[p]))
            a, b = state.pawns[2 * p], state.pawns[2 * p + 1]
            expected.append(min(near[a] + far[b], far[a] + near[b]) if win_condition == "both"
                            else min(near[a], near[b], far[a], far[b]))
        np.testing.assert_array_equal(blockade_race_distances(state), expected)


def test_blockade_potential_is_each_seats_race_lead_for_a_batch_of_positions():
    """phi_p = weight * (the others' mean race distance - p's own) / cap, per position, the
    same whether the positions come together (as a rollout step asks) or one at a time."""
    game = blockade.Game(num_players=3)
    rng = np.random.default_rng(1)
    states = [game.new_initial_state()]
    for _ in range(40):  # walls and walks: positions with different wall layouts
        state = states[-1].clone()
        actions = state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
        states.append(state)
    potential = Potential(game, ShapingConfig(potential="distance", weight=0.5), RewardConfig())
    phi = potential(states)
    cap = 2.0 * (game.rows + game.cols)
    for state, row in zip(states, phi, strict=True):
        d = np.minimum(blockade_race_distances(state), cap)
        lead = np.array([(d.sum() - d[p]) / 2 - d[p] for p in range(3)]) / cap
        np.testing.assert_allclose(row, 0.5 * lead)
        np.testing.assert_allclose(potential([state])[0], row)
    np.testing.assert_allclose(phi[0], 0.0)  # the symmetric start: nobody leads


# -- end to end ---------------------------------------------------------------------------------

TINY = ["algo=ppo", "model.hidden=16", "logger=disabled", "algo.rollout.num_envs=4",
        "algo.rollout.num_steps=8", "algo.optim.minibatch_size=16", "algo.optim.update_epochs=2",
        "algo.pool.snapshot_every=1", "algo.pool.capacity=2", "algo.pool.baselines=[random]",
        "algo.pool.baseline_share=0.5", "algo.checkpoint.every=1", "algo.eval.every=0",
        "algo.eval.final_games=0", "algo.warm_start.games=0"]
GAMES = {
    "blockade": ["env=blockade", "env.rows=8", "env.cols=8", "env.max_turns=12",
                 "algo.shaping.potential=distance"],
    "nobles": ["env=nobles", "env.num_players=4", "env.max_turns=60",
               "algo.pool.scheme=prioritised", "algo.warm_start.games=2",
               "algo.warm_start.steps=3"],
    "barricade": ["env=barricade", "env.max_turns=10", "algo.shaping.potential=distance",
                  "algo.pool.scheme=uniform"],
}


def train_tiny(tmp_path, name, overrides):
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=[*TINY, *overrides, f"logger.dir={tmp_path}"])
    return run(cfg, tmp_path / name, overrides=[*TINY, *overrides])


TIMING = ("rollout/agent_steps_per_s", "rollout/seconds", "learner/samples_per_s",
          "time/minutes")


@pytest.mark.parametrize("game", list(GAMES))
def test_tiny_run_trains_checkpoints_resumes_exactly_and_evaluates(tmp_path, game, capsys):
    straight = train_tiny(tmp_path, "straight", [*GAMES[game], "algo.iterations=3",
                                                 "algo.console_every=2"])
    out = capsys.readouterr().out
    assert ("warm start:" in out) == (game == "nobles")
    lines = [x for x in out.splitlines() if x.startswith("iter ")]
    assert [x.split(" | ")[0] for x in lines] == ["iter 2/3", "iter 3/3"]  # and the last
    # The same run stopped after its first iteration (a time limit), then resumed.
    first = train_tiny(tmp_path, "first", [*GAMES[game], "algo.iterations=3",
                                           "algo.time_limit_minutes=1e-9"])
    assert first.counters["iteration"] == 1
    resumed = train_tiny(tmp_path, "resumed", [
        *GAMES[game], "algo.iterations=3", "algo.time_limit_minutes=null",
        f"resume={first.checkpoint}", "algo.eval.final_games=4",
        "algo.eval.final_opponents=[random]"])
    assert "warm start:" not in capsys.readouterr().out.split("resuming at iteration 1")[1]
    a, b = load_checkpoint(straight.checkpoint), load_checkpoint(resumed.checkpoint)
    assert a["algo"] == "ppo" and a["counters"]["iteration"] == b["counters"]["iteration"] == 3
    for k, v in a["model"]["weights"].items():
        torch.testing.assert_close(v, b["model"]["weights"][k], rtol=0, atol=0)
    assert [{k: v for k, v in h.items() if k not in TIMING} for h in a["history"]] == \
        [{k: v for k, v in h.items() if k not in TIMING} for h in b["history"]]
    # capacity 2, one snapshot per iteration
    assert [e["key"] for e in a["state"]["pool"]["snapshots"]] == [2, 3]
    def games_in_flight(checkpoint):
        return [(g["actions"], g["opponent"], g["learner"])
                for shard in checkpoint["state"]["shards"] for g in shard["games"]]

    assert games_in_flight(a) == games_in_flight(b)
    assert a["counters"]["learner_steps"] > 0 and a["counters"]["episodes"] > 0
    assert a["counters"]["started"] and b["counters"]["started"]  # and not again on resume
    assert resumed.final_eval["random"].summaries[0].games == 4
    # The checkpoint is an agent: checkpoint_agent, and checkpoint:PATH through agents.
    trained = checkpoint_agent(resumed.checkpoint)
    assert trained.acting.temperature == 1.0  # PPO's agent samples its stochastic policy
    game = envs.make_game(load_checkpoint(resumed.checkpoint)["env_config"])
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.legal_actions_mask()[trained.act(state)]
    from agents import make_agent

    agent = make_agent(f"checkpoint:{resumed.checkpoint}", game)
    agent.reset(game, state.current_player(), seed=1)
    assert state.legal_actions_mask()[agent.act(state)]


def test_history_logs_the_ppo_metrics(tmp_path):
    result = train_tiny(tmp_path, "run", [*GAMES["nobles"], "algo.iterations=2",
                                          "algo.eval.every=2", "algo.eval.games=4"])
    last = result.history[-1]
    for key in ("loss/policy", "loss/value", "loss/entropy", "ppo/approx_kl",
                "ppo/clip_fraction", "ppo/explained_variance", "rollout/episode_length",
                "rollout/win_rate", "rollout/vs_random/win_rate", "rollout/agent_steps_per_s",
                "eval/random/win_rate", "pool/size"):
        assert key in last, key
    assert last["ppo/lr"] < result.history[0]["ppo/lr"]  # annealed


def test_train_and_evaluate_from_the_command_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "train.py", *TINY, *GAMES["nobles"], "env.num_players=2",
         "algo.iterations=2", "algo.eval.final_games=2", "algo.eval.final_opponents=[random]",
         f"hydra.run.dir={tmp_path / 'run'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    checkpoint = tmp_path / "run" / "checkpoints" / "last.pt"
    assert "trained vs random" in done.stdout and checkpoint.is_file()
    evaluated = subprocess.run(
        [sys.executable, "evaluate.py", "env=nobles", "env.max_turns=60", "logger=disabled",
         f"agents=[checkpoint:{checkpoint},random]", "games=2", "chart=false",
         f"hydra.run.dir={tmp_path / 'eval'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert evaluated.returncode == 0, evaluated.stderr
    assert "checkpoint" in evaluated.stdout


def test_bad_ppo_configs_fail_clearly(tmp_path):
    with pytest.raises(ValueError, match="learner_seats=3 exceeds"):
        train_tiny(tmp_path, "a", [*GAMES["nobles"], "env.num_players=2",
                                   "algo.rollout.learner_seats=3"])
    with pytest.raises(ValueError, match="shaping.potential must be one of"):
        train_tiny(tmp_path, "b", [*GAMES["barricade"], "algo.shaping.potential=closeness"])
    with pytest.raises(ValueError, match="unknown config key"):
        train_tiny(tmp_path, "c", [*GAMES["nobles"], "+algo.loss.clip=0.1"])
    with pytest.raises(ValueError, match="no student round"):
        train_tiny(tmp_path, "d", [*GAMES["nobles"], "algo.warm_start.student_games=4"])


def test_mlp_kind_flattens_planes():
    net = build_network((19, 14, 11), 284, 2, ModelConfig(kind="mlp", hidden=16, blocks=1))
    logits, values = net(torch.zeros(3, 19, 14, 11))
    assert logits.shape == (3, 284) and values.shape == (3, 2)
    torch.jit.script(net)
