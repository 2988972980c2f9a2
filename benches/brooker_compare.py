"""Tables for benches/brooker_compare.sh: Brooker's numbers against closed forms and ours.

    python3 brooker_compare.py closed-forms RETRY_REFERENCE.csv

checks the harness: retry_sim's `no_retries` and `three_retries` cells have closed forms
(success rate 1 - p and 1 - p^4; attempts per payment 1 and 1 + p + p^2 + p^3), so the
reference numbers must agree with them within their standard errors.

z = (value - expected) / standard error; TOLERANCE below says why 3.7.
"""

import csv
import math
import sys

# Two-sided, Bonferroni over at most 200 comparisons: 200 x P(|Z| > 3.7) = 200 x 2.2e-4 = 0.043,
# a family-wise false-alarm rate under 5% when both sides simulate the same model.
TOLERANCE = 3.7


def load_retry(path):
    return {(float(r["failure_rate"]), r["policy"], r["metric"]):
            (float(r["mean"]), float(r["standard_error"]), int(r["runs"]))
            for r in csv.DictReader(open(path))}


def z_score(difference, standard_error):
    if standard_error == 0.0:
        return 0.0 if difference == 0.0 else math.inf
    return difference / standard_error


def closed_forms(path):
    reference = load_retry(path)
    rates = sorted({rate for rate, _, _ in reference})
    expected = {
        ("no_retries", "success_rate"): lambda p: 1 - p,
        ("no_retries", "calls_per_payment"): lambda p: 1.0,
        ("three_retries", "success_rate"): lambda p: 1 - p ** 4,
        ("three_retries", "calls_per_payment"): lambda p: 1 + p + p ** 2 + p ** 3,
    }
    print("| failure rate | policy | metric | original | closed form | z |")
    print("|---:|---|---|---:|---:|---:|")
    worst, beyond = 0.0, 0
    for rate in rates:
        for (policy, metric), form in expected.items():
            mean, se, _ = reference[(rate, policy, metric)]
            z = z_score(mean - form(rate), se)
            worst, beyond = max(worst, abs(z)), beyond + (abs(z) > TOLERANCE)
            print(f"| {rate:g} | {policy} | {metric} | {mean:.5f} ± {se:.5f} | {form(rate):.5f} | {z:+.2f} |")
    count = len(rates) * len(expected)
    print(f"\nlargest |z| = {worst:.2f} over {count} comparisons; "
          f"{beyond} beyond the tolerance |z| <= {TOLERANCE}")
    return 1 if beyond else 0


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "closed-forms":
        sys.exit(closed_forms(sys.argv[2]))
    sys.exit(f"unknown command {command!r}")
