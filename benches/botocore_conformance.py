"""botocore's own retry decisions on seeded event sequences, for src/model/load/client.rs.

Run by benches/botocore_conformance.sh inside a venv with botocore installed from PyPI. For
one retry mode (botocore's classic standard mode, or retry behaviour 2.1 when
AWS_NEW_RETRIES_2026=true), one client's quota sees payments start, attempts succeed, fail
with a 500 or time out (botocore's ReadTimeoutError), interleaved; each failure goes through
botocore's RetryHandler.needs_retry (StandardRetryConditions with 3 attempts, its
RetryQuotaChecker on a RetryQuota(500), its ExponentialBackoff with the uniform draw
injected) and each success through RetryQuotaChecker.release_retry_quota. Writes one CSV row
per event: the decision, botocore's delay (ms) and the quota's tokens after the event.

Nothing of botocore is copied: its classes are imported and called.
"""

import csv
import os
import random
import sys

from botocore.exceptions import ReadTimeoutError
from botocore.retries import quota, standard

MODE = sys.argv[1]  # the name our side gives the mode: aws_standard or aws_standard_2_1
SEED = int(sys.argv[2])
STEPS = int(sys.argv[3])


class Response:
    """The part of an HTTP response the retry code reads."""

    def __init__(self, status_code):
        self.status_code = status_code
        self.headers = {}


def main():
    rng = random.Random(SEED)
    draw = {"u": 0.0}
    retry_quota = quota.RetryQuota(500)
    checker = standard.RetryQuotaChecker(retry_quota)
    adapter = standard.RetryEventAdapter()
    handler = standard.RetryHandler(
        retry_policy=standard.RetryPolicy(
            retry_checker=standard.StandardRetryConditions(max_attempts=3),
            retry_backoff=standard.ExponentialBackoff(random=lambda: draw["u"]),
        ),
        retry_event_adapter=adapter,
        retry_quota=checker,
    )
    writer = csv.writer(sys.stdout, lineterminator="\n")
    in_flight = {}
    next_payment = 0
    for step in range(STEPS):
        # Phases of 400 events: mostly successes (at the quota's cap: nothing to refund),
        # then mostly failures (the quota drains), and so on.
        ok_share = 0.85 if (step // 400) % 2 == 0 else 0.1
        if not in_flight or (len(in_flight) < 4 and rng.random() < 0.3):
            payment = next_payment
            next_payment += 1
            in_flight[payment] = {"attempts": 1, "context": {}}
            writer.writerow([MODE, step, payment, "call", 1, "", "", "", fmt(retry_quota.available_capacity)])
            continue
        payment = rng.choice(sorted(in_flight))
        state = in_flight[payment]
        roll = rng.random()
        u = rng.random()
        if roll < ok_share:
            checker.release_retry_quota(state["context"], Response(200))
            del in_flight[payment]
            writer.writerow([MODE, step, payment, "ok", state["attempts"], "", "", "", fmt(retry_quota.available_capacity)])
            continue
        timeout = roll < ok_share + (1 - ok_share) / 2
        draw["u"] = u
        kwargs = {
            "attempts": state["attempts"],
            "operation": None,
            "request_dict": {"context": state["context"]},
        }
        if timeout:
            kwargs["response"] = None
            kwargs["caught_exception"] = ReadTimeoutError(endpoint_url="https://example.invalid")
        else:
            parsed = {"Error": {"Code": "InternalError", "Message": ""}, "ResponseMetadata": {}}
            kwargs["response"] = (Response(500), parsed)
            kwargs["caught_exception"] = None
        delay = handler.needs_retry(**kwargs)
        event = "timeout" if timeout else "error"
        if delay is None:
            del in_flight[payment]
            decision, delay_ms = "give_up", ""
        else:
            state["attempts"] += 1
            decision, delay_ms = "retry", repr(delay * 1000.0)
        writer.writerow([MODE, step, payment, event, kwargs["attempts"], repr(u), decision, delay_ms, fmt(retry_quota.available_capacity)])


def fmt(tokens):
    return str(tokens)


if __name__ == "__main__":
    main()
