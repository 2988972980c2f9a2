#!/usr/bin/env python3
"""A plain pure-Python event simulation of the timeline model (stdlib only), written from the
model's description (docs/models/timeline.md), as a speed reference for `simulate`'s timeline model.

It reads a timeline scenario file (the keys of configs/mobile-network.toml: Poisson or burst
arrivals, concurrent copies evenly spread, fixed / uniform / exponential / log-normal
latencies, request and ACK loss, timeout, retries, the six backoff policies, the three
strategies; no key lifecycle settings) and simulates every payment under every strategy on the
same sampled attempts (common random numbers): each attempt's request loss, request latency,
processing time, ACK loss, response latency and backoff jitter are drawn once, when the
attempt is first sent under any strategy, and reused by the others. Events wait in a heap
ordered by (time, sequence number), so ties happen in the order scheduled, as in the model.

Its draws come from Python's `random.Random(seed)`, not numpy's PCG64 streams, so it is not
bit-exact with `simulate`: its rates agree statistically, not to the payment.

Usage: timeline_reference.py SCENARIO.toml PAYMENTS [SEED]
Prints one JSON object: payments, seconds (CPU time of the simulation loop), and per strategy the counts and the median latency.
"""

import heapq
import json
import math
import random
import sys
import time
import tomllib
from statistics import NormalDist

Z_99 = NormalDist().inv_cdf(0.99)
SEND, ARRIVE, COMPLETE, RECEIVE, TIMEOUT = range(5)
CHARGED, REPLAYED, CONFLICT = range(3)
ABSENT, IN_FLIGHT, DONE = range(3)


def sampler(spec, rng):
    """A function drawing one duration (ms) from a distribution table."""
    kind = spec["distribution"]
    if kind == "fixed":
        ms = spec["ms"]
        return lambda: ms
    if kind == "uniform":
        low, high = spec["low_ms"], spec["high_ms"]
        return lambda: low + (high - low) * rng.random()
    if kind == "exponential":
        rate = 1.0 / spec["mean_ms"]
        return lambda: rng.expovariate(rate)
    if kind == "log_normal":
        mu = math.log(spec["median_ms"])
        sigma = math.log(spec["p99_ms"] / spec["median_ms"]) / Z_99
        return lambda: rng.lognormvariate(mu, sigma)
    raise SystemExit(f"unsupported distribution {kind}")


def backoff(spec, retry, previous, u):
    """The wait before retry number `retry` (AWS "Exponential Backoff And Jitter")."""
    policy = spec["policy"]
    if policy == "none":
        return 0.0
    base = spec["base_ms"]
    if policy == "constant":
        return base
    cap = spec["cap_ms"]
    if policy == "decorrelated_jitter":
        return min(cap, base + (previous * 3.0 - base) * u)
    temp = min(cap, base * 2.0**retry)
    if policy == "exponential":
        return temp
    if policy == "full_jitter":
        return temp * u
    if policy == "equal_jitter":
        return temp / 2.0 + temp / 2.0 * u
    raise SystemExit(f"unsupported backoff {policy}")


class Scenario:
    def __init__(self, path, rng):
        with open(path, "rb") as file:
            config = tomllib.load(file)
        arrivals = config.get("arrivals", {})
        network = config.get("network", {})
        server = config.get("server", {})
        client = config.get("client", {})
        fixed20 = {"distribution": "fixed", "ms": 20.0}
        self.rng = rng
        self.process = arrivals.get("process", "poisson")
        self.rate_per_s = arrivals.get("rate_per_s", 100.0)
        self.copies = arrivals.get("copies", 1)
        self.spread = arrivals.get("copy_spread_ms", 0.0)
        self.request_ms = sampler(network.get("request_latency", fixed20), rng)
        self.response_ms = sampler(network.get("response_latency", fixed20), rng)
        self.processing_ms = sampler(
            server.get("processing", {"distribution": "fixed", "ms": 50.0}), rng
        )
        self.request_loss = network.get("request_loss", 0.0)
        self.ack_loss = network.get("ack_loss", 0.0)
        self.timeout = client.get("timeout_ms", 1000.0)
        self.max_retries = client.get("max_retries", 3)
        self.backoff = client.get(
            "backoff", {"policy": "full_jitter", "base_ms": 100.0, "cap_ms": 5000.0}
        )

    def attempt(self):
        """One attempt's six draws: (request lost, request ms, processing ms, ACK lost,
        response ms, jitter)."""
        random_ = self.rng.random
        return (
            random_() < self.request_loss,
            self.request_ms(),
            self.processing_ms(),
            random_() < self.ack_loss,
            self.response_ms(),
            random_(),
        )


def simulate_payment(scenario, strategy, samples):
    """One payment under one strategy; `samples[copy]` is the list of that copy's attempts,
    extended on first use. Returns (attempts, deliveries, charges, replays, conflicts,
    succeeded, latency ms)."""
    heap = []
    sequence = 0
    copies = scenario.copies
    initial = scenario.backoff.get("base_ms", 0.0)
    sent = [0] * copies
    waiting = [-1] * copies
    jitter = [0.0] * copies
    previous = [initial] * copies
    for copy in range(copies):
        offset = scenario.spread * copy / (copies - 1) if copies > 1 else 0.0
        sequence += 1
        heapq.heappush(heap, (offset, sequence, SEND, copy, 0, None))
    key = ABSENT
    attempts = deliveries = charges = replays = conflicts = 0
    first_success = None
    last_give_up = 0.0

    def retry_or_give_up(now, copy):
        nonlocal sequence, last_give_up
        waiting[copy] = -1
        retry = sent[copy] - 1
        if retry < scenario.max_retries:
            wait = backoff(scenario.backoff, retry, previous[copy], jitter[copy])
            previous[copy] = wait
            sequence += 1
            heapq.heappush(heap, (now + wait, sequence, SEND, copy, 0, None))
        elif now > last_give_up:
            last_give_up = now

    while heap:
        now, _, kind, copy, attempt, data = heapq.heappop(heap)
        if kind == SEND:
            attempt = sent[copy]
            sent[copy] += 1
            waiting[copy] = attempt
            drawn = samples[copy]
            if len(drawn) <= attempt:
                drawn.append(scenario.attempt())
            sample = drawn[attempt]
            jitter[copy] = sample[5]
            attempts += 1
            sequence += 1
            heapq.heappush(heap, (now + scenario.timeout, sequence, TIMEOUT, copy, attempt, None))
            if not sample[0]:
                sequence += 1
                heapq.heappush(heap, (now + sample[1], sequence, ARRIVE, copy, attempt, sample))
        elif kind == ARRIVE:
            deliveries += 1
            answer = None
            if strategy == "unique_key":
                if key == ABSENT:
                    key = IN_FLIGHT
                else:
                    answer = CONFLICT if key == IN_FLIGHT else REPLAYED
            elif strategy == "check_then_insert" and key != ABSENT:
                answer = REPLAYED
            if answer is None:
                sequence += 1
                heapq.heappush(heap, (now + data[2], sequence, COMPLETE, copy, attempt, data))
            else:
                if answer == REPLAYED:
                    replays += 1
                else:
                    conflicts += 1
                if not data[3]:
                    sequence += 1
                    heapq.heappush(heap, (now + data[4], sequence, RECEIVE, copy, attempt, answer))
        elif kind == COMPLETE:
            charges += 1
            if strategy != "none":
                key = DONE
            if not data[3]:
                sequence += 1
                heapq.heappush(heap, (now + data[4], sequence, RECEIVE, copy, attempt, CHARGED))
        elif kind == RECEIVE:
            if waiting[copy] != attempt:
                continue
            if data == CONFLICT:
                retry_or_give_up(now, copy)
            else:
                waiting[copy] = -1
                if first_success is None:
                    first_success = now
        elif waiting[copy] == attempt:  # TIMEOUT
            retry_or_give_up(now, copy)
    succeeded = first_success is not None
    latency = first_success if succeeded else last_give_up
    return attempts, deliveries, charges, replays, conflicts, succeeded, latency


def main():
    path, payments = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 42
    rng = random.Random(seed)
    scenario = Scenario(path, rng)
    strategies = ["none", "check_then_insert", "unique_key"]
    totals = {s: [0] * 8 for s in strategies}
    replays_squared = {s: 0 for s in strategies}
    latencies = {s: [] for s in strategies}
    started = time.process_time()
    for _ in range(payments):
        if scenario.process == "poisson":
            rng.random()  # the gap to the next arrival: payments do not interact
        samples = [[] for _ in range(scenario.copies)]
        for strategy in strategies:
            result = simulate_payment(scenario, strategy, samples)
            total = totals[strategy]
            for index in range(5):
                total[index] += result[index]
            total[5] += result[5]
            total[6] += result[2] >= 2
            total[7] += max(result[2] - 1, 0)
            replays_squared[strategy] += result[3] ** 2
            latencies[strategy].append(result[6])
    seconds = time.process_time() - started
    names = ["attempts", "deliveries", "charges", "replays", "conflicts", "succeeded",
             "double_charged_payments", "extra_charges"]
    out = {"payments": payments, "seconds": seconds, "strategies": {}}
    for strategy in strategies:
        row = dict(zip(names, totals[strategy]))
        row["replays_squared"] = replays_squared[strategy]
        ordered = sorted(latencies[strategy])
        row["latency_p50_ms"] = ordered[max(math.ceil(0.5 * payments) - 1, 0)]
        out["strategies"][strategy] = row
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
