"""`kvdata reward score` and `kvdata reward serve`: parse, call kvdata.reward, print."""
from __future__ import annotations

import json
from pathlib import Path

import click

from kvdata.cli import main


@main.group("reward")
def reward_group() -> None:
    """The execution reward for RL trainers: score completions, serve warm verifiers on Ray.

    \b
    Examples:
      kvdata reward score --input completions.jsonl --data rl/ --out verdicts.jsonl
      kvdata reward serve --ray 10.0.0.1:6379 --actors 8 --gpus 1 --detach
    """


def _serve_options(f):
    for option in reversed([
        click.option("--workers", type=click.IntRange(1, 256), default=2, show_default=True,
                     help="Warm CPU verifier slots (no --gpus); per actor with --ray."),
        click.option("--gpus", type=click.IntRange(1, 64), help="One warm verifier per GPU; per actor with --ray."),
        click.option("--backend", help="triton-gpu, triton-interpreter, rocm, hip-compile, cuda-portability "
                                       "(default: the best one here for each task's language)."),
        click.option("--seeds", type=click.IntRange(1, 16), default=3, show_default=True,
                     help="Input sets per completion, drawn fresh."),
        click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per completion."),
        click.option("--memory-mb", type=int, default=4096, show_default=True, help="Host memory per completion."),
        click.option("--namespace", default="kvdata-reward", show_default=True,
                     help="Ray namespace of the served actors."),
    ]):
        f = option(f)
    return f


@reward_group.command("score")
@click.option("--input", "input_path", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSONL, one completion a line: {\"id\": <task id>, \"completion\": <text or message list>}, or a "
                   "row with its own data_source, reward_model (or ground_truth) and extra_info.")
@click.option("--data", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The `kvdata export --format rl` folder whose tasks the ids name.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every verdict (with the verifier's full result row) as JSONL.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: summary and verdicts.")
@click.option("--ray", "ray_address", help="Use the actors `kvdata reward serve --ray ADDRESS` started.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep verdicts across runs here (SQLite); default: this run only.")
@click.option("--compile-reward", type=float, default=0.4, show_default=True)
@click.option("--correct-reward", type=float, default=1.0, show_default=True)
@click.option("--speedup-weight", type=float, default=1.0, show_default=True,
              help="Most the speedup term adds (log2 of the speedup, reached at --speedup-cap).")
@click.option("--speedup-cap", type=float, default=4.0, show_default=True)
@click.option("--flag-cost", "flag_costs", multiple=True, metavar="FLAG=COST",
              help="What a verifier flag costs: zero, compile or no_speedup (repeatable; failing flags can be "
                   "zero or compile only).")
@_serve_options
def score_cmd(input_path, data, out, as_json, ray_address, cache_dir, compile_reward, correct_reward, speedup_weight,
              speedup_cap, flag_costs, workers, gpus, backend, seeds, timeout, memory_mb, namespace):
    """Score a file of completions with the execution reward (the reverify harness, every check on).

    \b
    Examples:
      kvdata export --data build/ --task torch2triton --format rl --out rl/
      kvdata reward score --input completions.jsonl --data rl/
      kvdata reward score --input completions.jsonl --data rl/ --json | jq .mean_reward
      kvdata reward score --input completions.jsonl --data rl/ --out verdicts.jsonl --flag-cost inputs_mutated=zero
      kvdata reward score --input completions.jsonl --data rl/ --ray 10.0.0.1:6379
    """
    from kvdata.reward.config import RewardConfig, ServeConfig
    from kvdata.reward.items import read_completions, read_rl_tasks
    from kvdata.reward.service import RewardService
    from kvdata.reward.verdict import summarize

    costs = {}
    for spec in flag_costs:
        flag, sep, cost = spec.partition("=")
        if not sep or not flag or not cost:
            raise click.UsageError(f"--flag-cost expects FLAG=COST, got {spec!r}")
        costs[flag.strip()] = cost.strip()
    reward = RewardConfig(compile_reward=compile_reward, correct_reward=correct_reward, speedup_weight=speedup_weight,
                          speedup_cap=speedup_cap, flag_costs=costs)
    serve = ServeConfig(backend=backend, workers=workers, gpus=gpus, seeds=seeds, timeout_s=timeout,
                        memory_mb=memory_mb, cache_dir=str(cache_dir) if cache_dir else None,
                        ray_address=ray_address, namespace=namespace)
    items = read_completions(input_path, read_rl_tasks(data) if data else {})
    service = RewardService(reward, serve)
    try:
        verdicts = service.score(items)
        stats = service.stats()
    finally:
        service.close()
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", encoding="utf-8") as f:
            for v in verdicts:
                f.write(json.dumps(v.to_dict(), default=str) + "\n")
    summary = {**summarize(verdicts), "cache": stats, "out": str(out) if out else None}
    if as_json:
        click.echo(json.dumps({**summary, "verdicts": [{k: val for k, val in v.to_dict().items() if k != "row"}
                                                      for v in verdicts]}, default=str))
        return
    click.echo(f"{summary['completions']} completions: mean reward {summary['mean_reward']:.3f}, "
               f"{summary['correct']} correct, {summary['compiled']} compiled, {summary['hacked']} capped by a hack "
               f"flag ({summary['wall_s']:.1f} s)")
    for reason, n in summary["counts"].items():
        click.echo(f"  {reason:32s} {n}")
    if out:
        click.echo(f"verdicts: {out}")


@reward_group.command("serve")
@click.option("--ray", "ray_address", required=True, help="Ray cluster address (`ray start --head` prints it).")
@click.option("--actors", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="Verifier actors: one per node (each with --gpus or --workers slots) is the usual choice.")
@click.option("--detach", is_flag=True, help="Leave the actors running and return (stop them with --stop).")
@click.option("--stop", is_flag=True, help="Stop the actors a detached serve started in --namespace.")
@_serve_options
def serve_cmd(ray_address, actors, detach, stop, workers, gpus, backend, seeds, timeout, memory_mb, namespace):
    """Start warm verifier actors on a Ray cluster for the trainers' reward functions.

    Trainers use them with KVDATA_REWARD_RAY=ADDRESS (veRL's reward workers, TRL) or
    `kvdata reward score --ray ADDRESS`. Without --detach the actors live until Ctrl-C.

    \b
    Examples:
      kvdata reward serve --ray 10.0.0.1:6379 --actors 4 --gpus 8
      kvdata reward serve --ray 10.0.0.1:6379 --actors 2 --workers 16 --detach
      kvdata reward serve --ray 10.0.0.1:6379 --stop
    """
    from kvdata.reward.config import ServeConfig
    from kvdata.reward.ray_pool import RayPool

    serve = ServeConfig(backend=backend, workers=workers, gpus=gpus, seeds=seeds, timeout_s=timeout,
                        memory_mb=memory_mb, ray_address=ray_address, namespace=namespace)
    if stop:
        pool = RayPool.attach(serve)
        n = len(pool.actors)
        pool.stop()
        click.echo(f"stopped {n} kvdata reward actor(s) in namespace {namespace}")
        return
    pool = RayPool.start(serve, actors, detached=True)
    click.echo(f"{len(pool.actors)} kvdata reward actor(s), {pool.slots} warm slot(s), in Ray namespace {namespace} "
               f"at {ray_address}")
    click.echo(f"trainers: export KVDATA_REWARD_RAY={ray_address}"
               + (f" KVDATA_REWARD_NAMESPACE={namespace}" if namespace != "kvdata-reward" else ""))
    if detach:
        return
    import signal
    import time

    def _stop(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    click.echo("serving; Ctrl-C (or SIGTERM) stops the actors")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        pool.stop()
        click.echo("stopped")
