"""Tables for benches/brooker_compare.sh: Brooker's numbers against closed forms and ours.

    python3 brooker_compare.py closed-forms RETRY_REFERENCE.csv
    python3 brooker_compare.py retry RETRY_REFERENCE.csv OUR_LOAD_SWEEP.csv
    python3 brooker_compare.py collapse COLLAPSE_REFERENCE.csv OUR_LOAD_TIMESERIES.csv

closed-forms checks the harness: retry_sim's `no_retries` and `three_retries` cells have
closed forms (success rate 1 - p and 1 - p^4; attempts per payment 1 and 1 + p + p^2 + p^3),
so the reference numbers must agree with them within their standard errors.

retry and collapse put the original's means and ours side by side. Each comparison is a
Welch test of the difference of two means, each from independent seeded runs:
t = (ours - original) / sqrt(se_ours^2 + se_original^2), its two-sided p-value from Student's
t with Welch's degrees of freedom. A table passes when every p-value is at least 0.05 / m for
its m comparisons (Bonferroni: if both programs simulate the same model, the chance that any
of the m comparisons fails is under 5%). Each command exits 1 if one fails.
"""

import csv
import math
import sys

import brooker_reference as reference_windows

def load_retry(path):
    return {(float(r["failure_rate"]), r["policy"], r["metric"]):
            (float(r["mean"]), float(r["standard_error"]), int(r["runs"]))
            for r in csv.DictReader(open(path))}


def student_two_sided(t, df):
    """P(|T| > |t|) for Student's t with df degrees of freedom (df a whole number >= 1), by
    the finite series of Abramowitz and Stegun 26.7.3 and 26.7.4."""
    if math.isinf(t):
        return 0.0
    theta = math.atan(abs(t) / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for k in range(1, df // 2):
            term *= cos2 * (2 * k - 1) / (2 * k)
            total += term
        inside = math.sin(theta) * total
    else:
        total = 0.0
        if df > 1:
            term, total = 1.0, 1.0
            for k in range(1, (df - 1) // 2):
                term *= cos2 * (2 * k) / (2 * k + 1)
                total += term
            total *= math.sin(theta) * math.cos(theta)
        inside = 2 / math.pi * (theta + total)
    return max(0.0, 1.0 - inside)


def welch(ours, original):
    """(t, two-sided p) of ours - original; each a (mean, standard error, runs)."""
    (a, sa, na), (b, sb, nb) = original, ours
    se = math.hypot(sa, sb)
    if se == 0.0:
        return (0.0, 1.0) if a == b else (math.inf, 0.0)
    t = (b - a) / se
    denominator = (sa ** 4 / (na - 1) if sa else 0.0) + (sb ** 4 / (nb - 1) if sb else 0.0)
    df = max(1, math.floor(se ** 4 / denominator))
    return t, student_two_sided(t, df)


def z_score(difference, standard_error):
    if standard_error == 0.0:
        return 0.0 if difference == 0.0 else math.inf
    return difference / standard_error


def closed_forms(path):
    """The original's no_retries and three_retries cells against their closed forms: t with
    runs - 1 degrees of freedom, or, where every run saw the same ratio (standard error 0), a
    normal z with the binomial standard error of the expected success rate over all the
    payments of the runs. Bonferroni over the comparisons, as the other tables."""
    reference = load_retry(path)
    rates = sorted({rate for rate, _, _ in reference})
    expected = {
        ("no_retries", "success_rate"): lambda p: 1 - p,
        ("no_retries", "calls_per_payment"): lambda p: 1.0,
        ("three_retries", "success_rate"): lambda p: 1 - p ** 4,
        ("three_retries", "calls_per_payment"): lambda p: 1 + p + p ** 2 + p ** 3,
    }
    print("| failure rate | policy | metric | original | closed form | t |")
    print("|---:|---|---|---:|---:|---:|")
    m = len(rates) * len(expected)
    worst, beyond = 0.0, 0
    for rate in rates:
        for (policy, metric), form in expected.items():
            mean, se, runs = reference[(rate, policy, metric)]
            value = form(rate)
            if se > 0.0:
                t = (mean - value) / se
                p = student_two_sided(t, runs - 1)
            else:
                payments = reference[(rate, policy, "unique_calls")][0] * runs
                binomial = math.sqrt(value * (1 - value) / payments) if metric == "success_rate" else 0.0
                t = z_score(mean - value, binomial)
                p = math.erfc(abs(t) / math.sqrt(2))
            worst, beyond = max(worst, abs(t)), beyond + (p < 0.05 / m)
            print(f"| {rate:g} | {policy} | {metric} | {mean:.5f} ± {se:.5f} | {value:.5f} | {t:+.2f} |")
    print(f"\nclosed forms: {m} comparisons, largest |t| = {worst:.2f}; tolerance p >= 0.05 / {m} "
          f"each; {beyond} beyond")
    return 1 if beyond else 0


def mean_se_runs(values):
    mean, se = reference_windows.mean_and_standard_error(values)
    return mean, se, len(values)


def bonferroni_table(rows, title):
    """Prints rows of (label cells, original, ours) with t and p; returns how many fail."""
    m = len(rows)
    threshold = 0.05 / m
    df = 2 * (min(min(original[2], ours[2]) for _, original, ours, _ in rows) - 1)
    failed, worst = 0, 0.0
    for cells, original, ours, digits in rows:
        t, p = welch(ours, original)
        worst = max(worst, abs(t))
        failed += p < threshold
        mark = " **beyond**" if p < threshold else ""
        print(f"| {' | '.join(cells)} | {original[0]:.{digits}f} ± {original[1]:.{digits}f} "
              f"| {ours[0]:.{digits}f} ± {ours[1]:.{digits}f} | {t:+.2f}{mark} |")
    print(f"\n{title}: {m} comparisons, largest |t| = {worst:.2f}; tolerance p >= 0.05 / {m} "
          f"= {threshold:.2g} each (|t| <= {bonferroni_t(m, df):.2f} at {df} degrees of freedom); "
          f"{failed} beyond")
    return failed


def bonferroni_t(m, df):
    low, high = 0.0, 50.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if student_two_sided(middle, df) > 0.05 / m else (low, middle)
    return high


RETRY_METRICS = [("successes", "succeeded", 1), ("total_calls", "attempts", 1),
                 ("success_rate", None, 5), ("calls_per_payment", None, 5)]


def retry(reference_path, ours_path):
    reference = load_retry(reference_path)
    runs = retry_runs_by_cell(ours_path)
    print("| failure rate | policy | metric | original | simulate | t |")
    print("|---:|---|---|---:|---:|---:|")
    rows = []
    cells = sorted({(rate, policy) for rate, policy, _ in reference},
                   key=lambda cell: (cell[0], RETRY_POLICIES.index(cell[1])))
    for rate, policy in cells:
        for metric, _, digits in RETRY_METRICS:
            ours = mean_se_runs([v[metric] for v in runs[(rate, policy)]])
            rows.append(([f"{rate:g}", policy, metric], reference[(rate, policy, metric)], ours,
                          digits))
    return bonferroni_table(rows, "retry_sim")


RETRY_POLICIES = ["no_retries", "three_retries", "adaptive_10pct", "breaker_10pct"]


def collapse_summaries(series_path):
    """Per scenario, the same per-run summaries brooker_reference.py makes of the original,
    from our time series cut at 80 s."""
    runs = {}
    for row in csv.DictReader(open(series_path)):
        second = float(row["bucket_start_s"])
        if second >= 80:
            continue
        runs.setdefault(row["scenario"], {}).setdefault(row["run"], []).append(
            (second, int(row["arrivals"]), int(row["successes"]), int(row["retries"]),
             int(row["timeouts"]), float(row["workers_busy"])))
    return {scenario: list(by_run.values()) for scenario, by_run in runs.items()}


def load_collapse(path):
    return {(r["policy"], r["metric"]): (float(r["mean"]), float(r["standard_error"]),
                                         int(r["runs"]))
            for r in csv.DictReader(open(path))}


def collapse(reference_path, series_path):
    reference = load_collapse(reference_path)
    ours_runs = collapse_summaries(series_path)
    print("| policy | metric | original | simulate | t |")
    print("|---|---|---:|---:|---:|")
    rows = []
    for policy in reference_windows.COLLAPSE_POLICIES:
        summaries = reference_windows.summarise_runs(ours_runs[policy])
        for metric, values in summaries.items():
            if metric == "in_flight_at_80s" or (policy, metric) not in reference:
                continue
            if len(values) < 2 or reference[(policy, metric)][2] < 2:
                continue  # a mean of one run has no standard error
            rows.append(([policy, metric], reference[(policy, metric)], mean_se_runs(values), 2))
    return bonferroni_table(rows, "simple_collapse_sim")


def retry_runs_by_cell(ours_path):
    """Our runs per (failure rate, policy) from load.csv: one row per error rate of the
    file's [sweep] of `server.error_rate`, run and scenario (the scenarios are the policies)."""
    runs = {}
    for row in csv.DictReader(open(ours_path)):
        policy, rate = row["scenario"], row["server.error_rate"]
        payments = int(row["payments"])
        runs.setdefault((float(rate), policy), []).append({
            "successes": int(row["succeeded"]), "total_calls": int(row["attempts"]),
            "success_rate": int(row["succeeded"]) / payments,
            "calls_per_payment": int(row["attempts"]) / payments})
    return runs


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "closed-forms":
        sys.exit(closed_forms(sys.argv[2]))
    if command == "retry":
        sys.exit(1 if retry(sys.argv[2], sys.argv[3]) else 0)
    if command == "collapse":
        sys.exit(1 if collapse(sys.argv[2], sys.argv[3]) else 0)
    sys.exit(f"unknown command {command!r}")
