"""Runs the AWS simulator's own setup_sim and run_sim once per run and prints, per (clients,
policy), the mean and standard error over runs of its calls and its time, as CSV.

    python3 aws_backoff_original.py MODULE_DIR RUNS [SEED [CLIENTS [POLICIES]]]

MODULE_DIR holds aws_model.py: the original src/backoff_simulator.py with `xrange` -> `range`
and its final `run()` call removed (benches/aws_backoff_compare.sh makes it). Nothing of the
original is copied here: this only imports it. One `random.seed(SEED)` (default 2015) for the
whole sweep, then the points in the original's order (clients 10 to 190, its five classes),
or only the CLIENTS (comma-separated) and POLICIES (our names, comma-separated) given.
"""
import io
import math
import random
import sys

sys.path.insert(0, sys.argv[1])
import aws_model  # noqa: E402

runs = int(sys.argv[2])
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 2015)
names = {"Exponential": "exponential", "Decorr": "decorrelated_jitter",
         "EqualJitter": "equal_jitter", "FullJitter": "full_jitter", "None": "none"}
only_clients = {int(c) for c in sys.argv[4].split(",")} if len(sys.argv) > 4 else None
only_policies = set(sys.argv[5].split(",")) if len(sys.argv) > 5 else None
print("clients,policy,metric,runs,mean,standard_error", flush=True)
for i in range(1, 20):
    clients = i * 10
    for cls, name in aws_model.backoff_types:
        if (only_clients is not None and clients not in only_clients) or (
                only_policies is not None and names[name] not in only_policies):
            continue
        calls, times = [], []
        for _ in range(runs):
            stats = aws_model.Stats()
            queue, stats = aws_model.setup_sim(clients, cls, io.StringIO(), stats)
            times.append(aws_model.run_sim(queue))
            calls.append(stats.calls)
        for metric, values in (("writes", calls), ("completion_ms", times)):
            mean = math.fsum(values) / runs
            sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (runs - 1))
            print(f"{clients},{names[name]},{metric},{runs},{mean!r},{sd / math.sqrt(runs)!r}",
                  flush=True)
