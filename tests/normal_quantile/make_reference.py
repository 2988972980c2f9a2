#!/usr/bin/env python3
"""Writes normal_quantile.csv: the standard normal quantile z(u) = sqrt(2) erfinv(2u - 1) at
2,400 doubles u, computed by mpmath from the exact value of each u with 60 significant digits
more than 2u - 1 needs to keep u (so 360 for u = 1e-300), rounded once to the nearest double, as the reference for the timeline model's inverse
normal CDF (src/model/timeline/distribution.rs).

The points: 2,000 evenly spread over (0, 1); the doubles next to the central region's edges
(u = 0.075 and 0.925) and to the far tail's (u = exp(-25)); powers of ten down to 1e-300 and
their mirrors below 1; and the smallest draws the model can make (k × 2^-53).

Usage: python3 tests/normal_quantile/make_reference.py > tests/normal_quantile/normal_quantile.csv
(mpmath 1.3.0).
"""

import math

import mpmath



def quantile(u: float) -> float:
    digits = 60 + max(0, -math.floor(math.log10(min(u, 1.0 - u))))
    with mpmath.workdps(digits):
        exact = mpmath.mpf(u)  # the double's exact value
        return float(mpmath.sqrt(2) * mpmath.erfinv(2 * exact - 1))


def neighbours(x: float, count: int = 3):
    down = up = x
    points = [x]
    for _ in range(count):
        down, up = math.nextafter(down, 0.0), math.nextafter(up, 1.0)
        points += [down, up]
    return points


points = [(i + 0.5) / 2000 for i in range(2000)]
for edge in (0.075, 0.925, math.exp(-25.0), 1.0 - math.exp(-25.0)):
    points += neighbours(edge)
for k in range(1, 301):
    points.append(10.0**-k)
for k in range(1, 16):
    points.append(1.0 - 10.0**-k)
points += [k * 2.0**-53 for k in range(1, 41)]
points += [1.0 - k * 2.0**-53 for k in range(1, 41)]
points = sorted(set(p for p in points if 0.0 < p < 1.0))

print("u,z")
for u in points:
    print(f"{u!r},{quantile(u)!r}")
