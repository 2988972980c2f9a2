"""Times the article's numpy script and `simulate` on the same sizes and checks their counts.

Run it through benches/compare.sh, which builds `simulate` (twice: as shipped, and with the
`portable-scan` feature, as on a processor without AVX-512) and installs numpy into
benches/.venv. Each command runs in its own process under /usr/bin/time: wall time is measured
here and includes process start-up; peak memory is the command's own maximum RSS as
/usr/bin/time reports it (os.wait4 on a child forked from this Python process would report
Python's own RSS, inherited across exec). Counts must be equal wherever both ran; any
difference fails the script.
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
    """Runs a command; returns (wall seconds, its own max RSS in MiB, stdout)."""
    with tempfile.NamedTemporaryFile() as rss_file, tempfile.TemporaryFile() as captured:
        started = time.perf_counter()
        process = subprocess.Popen(
            ["/usr/bin/time", "-f", "%M", "-o", rss_file.name, *command],
            stdout=captured, stderr=subprocess.PIPE)
        _, stderr = process.communicate()
        wall = time.perf_counter() - started
        captured.seek(0)
        stdout = captured.read().decode()
        max_rss_kib = int(open(rss_file.name).read().split()[-1])
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}):\n{stderr.decode()}")
    return wall, max_rss_kib / 1024, stdout


def cpu():
    """The processor's model name and whether it has AVX-512F (Linux /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as file:
            text = file.read()
    except OSError:
        return platform.processor() or platform.platform(), False
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("model name")), platform.machine())
    return model, " avx512f" in text


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
    parser.add_argument("--simulate-portable",
                        help="simulate built with the portable-scan feature (no AVX-512)")
    parser.add_argument("--sizes", default="1e6,1e7,1e8,1e9")
    parser.add_argument("--numpy-max", type=float, default=1e8,
                        help="largest size numpy is run at (10^9 needs ~33 GB)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N for simulate")
    args = parser.parse_args()

    model, avx512 = cpu()
    print(f"CPU: {model}, {os.cpu_count()} cores, AVX-512F: {'yes' if avx512 else 'no'}")
    binaries = [("simulate", args.simulate)]
    if args.simulate_portable:
        binaries.append(("portable", args.simulate_portable))
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
        timings = []
        for label, binary in binaries:
            with tempfile.TemporaryDirectory() as folder:
                wall, rss, _ = best_of(args.repeat, [
                    binary, "--quiet", "--p", P_VALUES, "--requests", str(size),
                    "--out", folder])
                counts = simulate_counts(folder)
            if numpy_counts is not None and numpy_counts != counts:
                sys.exit(f"counts differ at {size} requests:\nnumpy    {numpy_counts}\n"
                         f"{label} {counts}")
            timings.append((wall, rss))
        rows.append((size, numpy_wall, numpy_rss, timings,
                     "identical" if numpy_counts else "not compared"))
        sys.stdout.flush()

    print(f"numpy {numpy_version}; p = {P_VALUES}; seed 42; max retries 20; "
          f"simulate best of {args.repeat}\n")
    header = "| requests x 3 p | numpy time | numpy memory |"
    rule = "|---:|---:|---:|"
    for label, _ in binaries:
        name = "simulate" if label == "simulate" else "simulate, portable scan"
        header += f" {name} time | {name} memory | numpy / {name} |"
        rule += "---:|---:|---:|"
    print(header + " counts |")
    print(rule + "---|")
    for size, numpy_wall, numpy_rss, timings, verdict in rows:
        numpy_time = f"{numpy_wall:.2f} s" if numpy_wall is not None else "—"
        numpy_mem = f"{numpy_rss:,.0f} MiB" if numpy_rss is not None else "—"
        line = f"| {size:.0e} | {numpy_time} | {numpy_mem} |"
        for wall, rss in timings:
            ratio = f"{numpy_wall / wall:,.0f}x" if numpy_wall is not None else "—"
            line += f" {wall:.3f} s | {rss:,.1f} MiB | {ratio} |"
        print(line + f" {verdict} |")


if __name__ == "__main__":
    main()
