"""Goldens for src/matrix/stats.ts: SciPy's Fisher exact test and statsmodels' Wilson / Newcombe intervals and
sample size (statsmodels NormalIndPower.power solved by SciPy brentq), for a cell's failure count against a baseline's.

Run (a Python with scipy and statsmodels, e.g. Debian's python3-scipy python3-statsmodels):
    /usr/bin/python3 scripts/gen_stats_goldens.py > fixtures/stats/goldens.json
"""
import json
import math
import random
import sys
import warnings

import scipy
import statsmodels
from scipy.optimize import brentq
from scipy.stats import fisher_exact
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint, proportion_effectsize

sys.path.insert(0, "scripts")
from golden_meta import meta  # noqa: E402


def case(x1, n1, x2, n2):
    p = float(fisher_exact([[x1, n1 - x1], [x2, n2 - x2]])[1])
    low, upp = confint_proportions_2indep(x1, n1, x2, n2, method="newcomb", compare="diff")
    w1 = proportion_confint(x1, n1, method="wilson")
    w2 = proportion_confint(x2, n2, method="wilson")
    r1, r2 = x1 / n1, x2 / n2
    needed = None
    if r1 != r2:
        # statsmodels' own power function, solved with SciPy's brentq: its solve_power gives up ("Failed to
        # converge") on some effect sizes, this root is what it approximates.
        h = proportion_effectsize(r1, r2)
        power = NormalIndPower().power
        needed = math.ceil(brentq(lambda n: power(h, n, 0.05, ratio=1, alternative="two-sided") - 0.8, 1e-6, 1e12,
                                  xtol=1e-12, rtol=1e-14))
        # Where solve_power does converge, its ceiling must be the same number: the brief's definition holds.
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                solved = NormalIndPower().solve_power(effect_size=h, alpha=0.05, power=0.8, ratio=1,
                                                      alternative="two-sided")
            except Warning:
                solved = None
        if solved is not None and math.ceil(solved) != needed:
            raise SystemExit(f"solve_power {solved} and brentq {needed} disagree on {(x1, n1, x2, n2)}")
    effect = "helps" if p < 0.05 and r1 < r2 else "hurts" if p < 0.05 and r1 > r2 else "no evidence"
    return {"x1": x1, "n1": n1, "x2": x2, "n2": n2, "p_value": p, "difference": r1 - r2,
            "ci95": [float(low), float(upp)], "wilson1": [float(w1[0]), float(w1[1])],
            "wilson2": [float(w2[0]), float(w2[1])], "trials_needed": needed, "effect": effect}


cases = []
for n1 in range(1, 7):
    for n2 in range(1, 7):
        for x1 in range(n1 + 1):
            for x2 in range(n2 + 1):
                cases.append((x1, n1, x2, n2))
cases += [(2, 30, 12, 30), (12, 30, 12, 30), (12, 30, 2, 30), (0, 30, 12, 30), (30, 30, 0, 30), (1, 1, 0, 1),
          (0, 1000, 3, 1000), (40, 1000, 55, 1000), (500, 1000, 500, 1000), (250, 5000, 310, 5000),
          (4000, 100000, 4100, 100000), (0, 100000, 1, 100000), (1, 2, 39, 40),
          # 5000 trials a side: near the 0.05 line, far past it, and all-or-nothing.
          (2400, 5000, 2500, 5000), (100, 5000, 140, 5000), (100, 5000, 300, 5000), (1, 5000, 0, 5000),
          (0, 5000, 5000, 5000), (5000, 5000, 4990, 5000), (50000, 100000, 50500, 100000)]
rng = random.Random(20261205)
for _ in range(300):
    n1, n2 = rng.randint(1, 200), rng.randint(1, 200)
    cases.append((rng.randint(0, n1), n1, rng.randint(0, n2), n2))
for _ in range(40):
    n1, n2 = rng.randint(500, 20000), rng.randint(500, 20000)
    cases.append((rng.randint(0, n1), n1, rng.randint(0, n2), n2))

out = {"meta": meta("scripts/gen_stats_goldens.py",
                    "/usr/bin/python3 scripts/gen_stats_goldens.py > fixtures/stats/goldens.json",
                    scipy=scipy.__version__, statsmodels=statsmodels.__version__),
       "cases": [case(*c) for c in cases]}
json.dump(out, sys.stdout)
sys.stdout.write("\n")
