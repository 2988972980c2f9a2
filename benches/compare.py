"""Times the article's numpy script and `simulate` on the same sizes and checks their counts.

Run it through benches/compare.sh, which builds `simulate` and installs numpy into
benches/.venv. Each command runs in its own process; wall time and peak memory (max RSS) are
measured from outside with os.wait4, so both include process start-up. Counts must be equal
wherever both ran; any difference fails the script.
"""
import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
P_VALUES = "0.01,0.05,0.10"


def measure(command):
    """Runs a command; returns (wall seconds, max RSS in MiB, stdout)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as captured:
        process = subprocess.Popen(command, stdout=captured, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr = process.stderr.read().decode()
        captured.seek(0)
        stdout = captured.read().decode()
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}):\n{stderr}")
    return wall, usage.ru_maxrss / 1024, stdout


def simulate_counts(folder):
    counts = {}
    with open(os.path.join(folder, "results.csv"), newline="") as file:
        for row in csv.DictReader(file):
            if row["server"] == "non_idempotent" and row["run"] == "0":
                counts[repr(float(row["p"]))] = {
                    key: int(row[key])
                    for key in (
                        "deliveries",
                        "double_charged_requests",
                        "extra_charges",
                        "retries_exhausted",
                    )
                }
    return counts


def best_of(repeat, command):
    runs = [measure(command) for _ in range(repeat)]
    return min(runs, key=lambda run: run[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True, help="python with numpy")
    parser.add_argument("--simulate", required=True, help="the simulate binary")
    parser.add_argument("--sizes", default="1e6,1e7,1e8,1e9")
    parser.add_argument("--numpy-max", type=float, default=1e8,
                        help="largest size numpy is run at (10^9 needs ~33 GB)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for simulate")
    args = parser.parse_args()

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.processor() or platform.platform()}")
    rows = []
    numpy_version = None
    for size in [int(float(s)) for s in args.sizes.split(",")]:
        numpy_wall = numpy_rss = numpy_counts = None
        if size <= args.numpy_max:
            numpy_wall, numpy_rss, out = measure([
                args.python, os.path.join(HERE, "article_numpy.py"),
                "--requests", str(size), "--p", P_VALUES])
            report = json.loads(out)
            numpy_version, numpy_counts = report["numpy"], report["counts"]
        with tempfile.TemporaryDirectory() as folder:
            sim_wall, sim_rss, _ = best_of(args.repeat, [
                args.simulate, "--quiet", "--p", P_VALUES, "--requests", str(size),
                "--out", folder])
            sim_counts = simulate_counts(folder)
        if numpy_counts is not None and numpy_counts != sim_counts:
            sys.exit(f"counts differ at {size} requests:\nnumpy    {numpy_counts}\n"
                     f"simulate {sim_counts}")
        rows.append((size, numpy_wall, numpy_rss, sim_wall, sim_rss,
                     "identical" if numpy_counts else "not compared"))
        sys.stdout.flush()

    print(f"numpy {numpy_version}; p = {P_VALUES}; seed 42; max retries 20; "
          f"simulate best of {args.repeat}\n")
    print("| requests x 3 p | numpy time | numpy memory | simulate time | simulate memory "
          "| speed-up | counts |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for size, numpy_wall, numpy_rss, sim_wall, sim_rss, verdict in rows:
        numpy_time = f"{numpy_wall:.2f} s" if numpy_wall is not None else "—"
        numpy_mem = f"{numpy_rss:,.0f} MiB" if numpy_rss is not None else "—"
        ratio = f"{numpy_wall / sim_wall:,.0f}x" if numpy_wall is not None else "—"
        print(f"| {size:.0e} | {numpy_time} | {numpy_mem} | {sim_wall:.3f} s "
              f"| {sim_rss:,.1f} MiB | {ratio} | {verdict} |")


if __name__ == "__main__":
    main()
