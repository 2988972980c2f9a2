"""Reference numbers from Brooker's two simulations (github.com/mbrooker/simulator_example).

Runs the original modules, imported from MODEL_DIR (temporary copies made by
benches/brooker_compare.sh; nothing of them lives in this project), many times with one seed
per run, and writes means and standard errors:

    python3 brooker_reference.py retry MODEL_DIR RUNS JOBS [RATES] > retry.csv
    python3 brooker_reference.py collapse MODEL_DIR RUNS JOBS SERIES.csv > summary.csv

retry: the cells of retry_sim.py's run_sims(10.0) (17 failure rates x 4 policies), built with
the module's own Stats, Server, Client, sim_loop and retry factories exactly as run_sims builds
them, RUNS seeded runs per cell (RATES, a comma-separated subset of the failure rates, runs
only those: the same numbers as in a full run). collapse: sim.py's run_sim_spike for its two clients, RUNS
seeded runs each, with the requests in progress recorded at every bucket's end (the script's
own concurrency column is not per bucket; see docs/brooker-semantics.md).

The seed of run r of cell i is 1000 * i + r: any JOBS gives byte-identical output.
"""

import csv
import importlib
import math
import random
import sys
from multiprocessing import Pool

# run_sims' failure rates, in its order (0.75 included: it is in the published list).
FAILURE_RATES = [0.0, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.0325,
                 0.05, 0.75, 0.1, 0.2, 0.3, 0.4, 0.5]
RETRY_POLICIES = ["no_retries", "three_retries", "adaptive_10pct", "breaker_10pct"]
COLLAPSE_POLICIES = {"no_backoff": "Client", "backoff_and_jitter": "ClientWithBackoffAndJitter"}
# Windows of the collapse time series (seconds, [from, to)) summarised per run.
WINDOWS = [(10, 20), (20, 25), (25, 30), (30, 40), (40, 60), (60, 80)]
SPIKE_END_S = 25
BASE_RATE_PER_S = 40.0
RECOVERY_WINDOW_S = 5
RECOVERY_SHARE = 0.9


def load(model_dir, name):
    if model_dir not in sys.path:
        sys.path.insert(0, model_dir)
    return importlib.import_module(name)


def mean_and_standard_error(values):
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


# ---- retry_sim -------------------------------------------------------------------------

def retry_factory(policy):
    strategies = importlib.import_module("retry_strategy")
    return {
        "no_retries": lambda: strategies.NRetriesFactory(0),
        "three_retries": lambda: strategies.NRetriesFactory(3),
        "adaptive_10pct": lambda: strategies.AdaptiveRetryFactory(0.1, 5),
        "breaker_10pct": lambda: strategies.CircuitBreakerRetryFactory(
            strategies.NRetriesFactory(3), 0.1),
    }[policy]()


def retry_run(task):
    """One run of one run_sims cell, as run_sims builds it; returns its three counters."""
    model_dir, rate_index, policy_index, run = task
    model = load(model_dir, "retry_sim")
    failure_rate = FAILURE_RATES[rate_index]
    policy = RETRY_POLICIES[policy_index]
    random.seed(1000 * (rate_index * len(RETRY_POLICIES) + policy_index) + run)
    factory = retry_factory(policy)
    stats = model.Stats(failure_rate, policy)
    server = model.Server(failure_rate)
    clients = [model.Client(factory.make(), 10.0, server, stats, 0.0) for _ in range(100)]
    model.sim_loop(clients, 10.0)
    return rate_index, policy_index, stats.successes, stats.total_calls, stats.unique_calls


def retry_main(model_dir, runs, jobs, rates=None):
    wanted = [FAILURE_RATES.index(float(rate)) for rate in rates.split(",")] if rates else \
        range(len(FAILURE_RATES))
    tasks = [(model_dir, i, j, r) for i in wanted
             for j in range(len(RETRY_POLICIES)) for r in range(runs)]
    with Pool(jobs) as pool:
        results = pool.map(retry_run, tasks, chunksize=1)
    cells = {}
    for rate_index, policy_index, successes, total, unique in results:
        cells.setdefault((rate_index, policy_index), []).append((successes, total, unique))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["failure_rate", "policy", "metric", "runs", "mean", "standard_error"])
    for (rate_index, policy_index), rows in sorted(cells.items()):
        metrics = {
            "successes": [s for s, _, _ in rows],
            "total_calls": [t for _, t, _ in rows],
            "unique_calls": [u for _, _, u in rows],
            "success_rate": [s / u for s, _, u in rows],
            "calls_per_payment": [t / u for _, t, u in rows],
        }
        for metric, values in metrics.items():
            mean, se = mean_and_standard_error(values)
            out.writerow([FAILURE_RATES[rate_index], RETRY_POLICIES[policy_index], metric,
                          runs, repr(mean), repr(se)])


# ---- simple_collapse_sim ---------------------------------------------------------------

def collapse_run(task):
    """One run of run_sim_spike; returns the per-second rows of the run."""
    model_dir, policy_index, run = task
    model = load(model_dir, "collapse_sim")
    if not getattr(model.Stats, "records_in_flight", False):
        close_bucket = model.Stats.print_stats

        def print_stats_recording_in_flight(self, t, data):
            self.data.in_flight = self.data.server.concurrency
            return close_bucket(self, t, data)

        model.Stats.print_stats = print_stats_recording_in_flight
        model.Stats.records_in_flight = True
    policy = list(COLLAPSE_POLICIES)[policy_index]
    random.seed(1000 * policy_index + run)
    history = model.run_sim_spike(policy, getattr(model, COLLAPSE_POLICIES[policy]))
    return policy_index, [(d.start_t, d.starts, d.successes, d.retries, d.timeouts, d.in_flight)
                          for d in history]


def recovered_at(goodput_by_second):
    """First second k >= the spike's end from which every later RECOVERY_WINDOW_S-second
    window [j, j + 5), j = k, k + 5, ..., has a mean goodput of at least 90% of the base
    rate; None if the last window misses it."""
    seconds = sorted(goodput_by_second)
    last = seconds[-1] + 1
    starts = list(range(SPIKE_END_S, last - RECOVERY_WINDOW_S + 1))
    good = {k: sum(goodput_by_second.get(s, 0) for s in range(k, k + RECOVERY_WINDOW_S))
            / RECOVERY_WINDOW_S >= RECOVERY_SHARE * BASE_RATE_PER_S for k in starts}
    for k in starts:
        if all(good[j] for j in range(k, last - RECOVERY_WINDOW_S + 1, RECOVERY_WINDOW_S)):
            return k
    return None


def collapse_main(model_dir, runs, jobs, series_path):
    tasks = [(model_dir, p, r) for p in range(len(COLLAPSE_POLICIES)) for r in range(runs)]
    with Pool(jobs) as pool:
        results = pool.map(collapse_run, tasks, chunksize=1)
    by_policy = {}
    for policy_index, rows in results:
        by_policy.setdefault(policy_index, []).append(rows)
    names = ["arrivals", "successes", "retries", "timeouts", "in_flight"]
    with open(series_path, "w", newline="") as file:
        out = csv.writer(file, lineterminator="\n")
        out.writerow(["policy", "second", "metric", "runs", "mean", "standard_error"])
        for policy_index, run_rows in sorted(by_policy.items()):
            seconds = min(len(rows) for rows in run_rows)
            for k in range(seconds):
                for m, metric in enumerate(names):
                    mean, se = mean_and_standard_error([rows[k][m + 1] for rows in run_rows])
                    out.writerow([list(COLLAPSE_POLICIES)[policy_index], int(run_rows[0][k][0]),
                                  metric, len(run_rows), repr(mean), repr(se)])
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["policy", "metric", "runs", "mean", "standard_error"])
    for policy_index, run_rows in sorted(by_policy.items()):
        policy = list(COLLAPSE_POLICIES)[policy_index]
        for metric, values in summarise_runs(run_rows).items():
            mean, se = mean_and_standard_error(values)
            out.writerow([policy, metric, len(values), repr(mean), repr(se)])


def summarise_runs(run_rows):
    """Per-run summaries of one policy's runs, each run a list of per-second rows
    (second, arrivals, successes, retries, timeouts, in flight): the mean per second of each
    count in each window, the requests in progress at 80 s, whether and when it recovered."""
    summaries = {}
    for low, high in WINDOWS:
        for m, metric in ((1, "arrivals"), (2, "goodput"), (3, "retries"), (4, "timeouts")):
            summaries[f"{metric}_per_s_{low}_{high}s"] = [
                sum(r[m] for r in rows if low <= r[0] < high) / (high - low)
                for rows in run_rows]
    summaries["in_flight_at_80s"] = [rows[-1][5] for rows in run_rows]
    recoveries = [recovered_at({int(r[0]): r[2] for r in rows}) for rows in run_rows]
    summaries["recovered_share"] = [1.0 if k is not None else 0.0 for k in recoveries]
    recovered = [float(k) for k in recoveries if k is not None]
    if recovered:
        summaries["recovered_at_s"] = recovered
    return summaries


if __name__ == "__main__":
    command, model_dir, runs, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if command == "retry":
        retry_main(model_dir, runs, jobs, sys.argv[5] if len(sys.argv) > 5 else None)
    elif command == "collapse":
        collapse_main(model_dir, runs, jobs, sys.argv[5])
    else:
        sys.exit(f"unknown command {command!r}: retry or collapse")
