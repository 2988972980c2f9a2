"""The article's numpy code (section 5), unchanged, as a command for benches/compare.py.

Prints one JSON object: per p the counts `simulate` writes to results.csv, and the seconds
spent in `simulate_attempts` (without interpreter start-up and import).
"""
import argparse
import json
import time

import numpy as np


def simulate_attempts(n_requests, p_ack_loss, max_retries, seed):
    """Each payment request's number of deliveries that reached the server."""
    rng = np.random.default_rng(seed)
    attempts = np.ones(n_requests, dtype=np.int64)
    still_retrying = np.ones(n_requests, dtype=bool)
    for _ in range(max_retries):
        draws = rng.random(n_requests)
        lost = still_retrying & (draws < p_ack_loss)
        attempts[lost] += 1
        still_retrying = lost
        if not still_retrying.any():
            break
    return attempts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--p", default="0.01,0.05,0.10")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--max-retries", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    counts = {}
    for p in [float(value) for value in args.p.split(",")]:
        attempts = simulate_attempts(args.requests, p, args.max_retries, args.seed)
        counts[repr(p)] = {
            "deliveries": int(attempts.sum()),
            "double_charged_requests": int(np.sum(attempts >= 2)),
            "extra_charges": int(np.sum(attempts - 1)),
            "retries_exhausted": int(np.sum(attempts == args.max_retries + 1)),
        }
    elapsed = time.perf_counter() - started
    print(json.dumps({"numpy": np.__version__, "seconds": elapsed, "counts": counts}))


if __name__ == "__main__":
    main()
