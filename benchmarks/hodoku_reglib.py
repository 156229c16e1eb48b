"""Known technique cases: HoDoKu's regression test library, read with our techniques.

HoDoKu (Bernhard Hobiger's Sudoku program, GPL-3) keeps `reglib-1.3.txt`: over a thousand
one-line test cases, each a pencil-mark state, a technique and the eliminations or placements
that technique must find there. The file is not part of sudoku-lens; give its path:

    python benchmarks/hodoku_reglib.py PATH/reglib-1.3.txt [--details]

A case is `:<code>[-<variant>]:<candidates>:<digits>:<deleted>:<eliminations>:<placements>:`.
For every case of a HoDoKu technique that has a counterpart here (`CODES`), the state is built
(the digits, `+` ones counted as placed while solving rather than given, then every empty
cell's candidates less HoDoKu's deleted ones) and every instance of our technique is listed
(`all_steps(grid, only=name)`, at most `MAX_STEPS`). A case passes when one instance makes
exactly the expected deduction (a placement counts as removing the cell's other candidates,
as HoDoKu writes some steps one way and some the other); else the best instance is counted as
removing more than expected, fewer, or something else, or nothing was found. HoDoKu's fail
cases (variant `x`) pass when nothing is found. Every instance is also checked against the
puzzle's solution (where the digits have exactly one): the count of unsound steps must be 0.

Prints one line per HoDoKu code and the totals per family; `--details` adds every case that
did not pass, with what was expected and what was found.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from sudoku_lens.logic import CandidateGrid, all_steps
from sudoku_lens.puzzle.text import cell_name
from sudoku_lens.solve import Status, solve_line

CODES = {
    "0000": "full-house",
    "0002": "hidden-single",
    "0003": "naked-single",
    "0100": "pointing",
    "0101": "claiming",
    "0110": "locked-pair",
    "0111": "locked-triple",
    "0200": "naked-pair",
    "0201": "naked-triple",
    "0202": "naked-quad",
    "0210": "hidden-pair",
    "0211": "hidden-triple",
    "0212": "hidden-quad",
    "0300": "x-wing",
    "0301": "swordfish",
    "0302": "jellyfish",
    "0310": "finned-x-wing",
    "0311": "finned-swordfish",
    "0312": "finned-jellyfish",
    "0320": "sashimi-x-wing",
    "0321": "sashimi-swordfish",
    "0322": "sashimi-jellyfish",
    "0400": "skyscraper",
    "0401": "two-string-kite",
    "0402": "empty-rectangle",
    "0403": "turbot-fish",
    "0500": "simple-colors-trap",
    "0501": "simple-colors-wrap",
    "0502": "multi-colors-1",
    "0503": "multi-colors-2",
    "0600": "unique-rectangle-1",
    "0601": "unique-rectangle-2",
    "0602": "unique-rectangle-3",
    "0603": "unique-rectangle-4",
    "0604": "unique-rectangle-5",
    "0605": "unique-rectangle-6",
    "0606": "hidden-rectangle",
    "0607": "avoidable-rectangle-1",
    "0608": "avoidable-rectangle-2",
    "0610": "bug-plus-1",
    "0701": "x-chain",
    "0702": "xy-chain",
    "0703": "remote-pair",
    "0706": "continuous-nice-loop",
    "0707": "discontinuous-nice-loop",
    "0708": "aic",
    "0709": "grouped-continuous-nice-loop",
    "0710": "grouped-discontinuous-nice-loop",
    "0711": "grouped-aic",
    "0800": "xy-wing",
    "0801": "xyz-wing",
    "0803": "w-wing",
    "0901": "als-xz",
    "0902": "als-xy-wing",
    "0903": "als-xy-chain",
    "0904": "death-blossom",
    "1101": "sue-de-coq",
}
"""HoDoKu technique codes and the technique of the same definition here."""

FAMILIES = {
    "00": "singles",
    "01": "intersections",
    "02": "subsets",
    "03": "fish",
    "04": "single-digit patterns",
    "05": "coloring",
    "06": "uniqueness",
    "07": "chains and loops",
    "08": "wings",
    "09": "almost locked sets",
    "11": "sue de coq",
}

MAX_STEPS = 3000
"""Instances listed per case at most (chains have thousands in some states)."""

OUTCOMES = ("pass", "more", "fewer", "other", "none")

Deduction = frozenset[tuple[int, int]]


@dataclass
class Case:
    line: int
    code: str
    variant: str
    values: list[int]
    given: list[bool]
    deleted: list[tuple[int, int]]
    eliminations: list[tuple[int, int]]
    placements: list[tuple[int, int]]


def _triples(text: str) -> list[tuple[int, int]]:
    """HoDoKu's `<digit><row><col>` triples as (cell, digit)."""
    return [((int(t[1]) - 1) * 9 + int(t[2]) - 1, int(t[0])) for t in text.split()]


def read_cases(path: Path) -> list[Case]:
    """The test cases of a reglib file (comment lines, `#` first, are skipped)."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith(":"):
            continue
        fields = (line.split(":") + [""] * 8)[1:8]
        code, _, variant = fields[0].partition("-")
        values, given = [], []
        text = fields[2]
        i = 0
        while i < len(text):
            placed = text[i] == "+"
            i += placed
            values.append(0 if text[i] in ".0" else int(text[i]))
            given.append(values[-1] > 0 and not placed)
            i += 1
        if len(values) != 81:
            raise SystemExit(f"{path}:{number}: the digits are not 81 cells")
        cases.append(
            Case(
                number,
                code,
                variant,
                values,
                given,
                _triples(fields[3]),
                _triples(fields[4]),
                _triples(fields[5]),
            )
        )
    return cases


def state(case: Case) -> CandidateGrid:
    """The pencil-mark state of a case: its givens, its placed digits, then HoDoKu's deleted
    candidates crossed out."""
    grid = CandidateGrid.from_puzzle(
        "".join(str(v) if given else "0" for v, given in zip(case.values, case.given, strict=True))
    )
    for cell, value in enumerate(case.values):
        if value and not case.given[cell]:
            grid.place(cell, value)
    for cell, digit in case.deleted:
        grid.eliminate(cell, digit)
    return grid


def deduction(
    grid: CandidateGrid, eliminations: tuple | list, placements: tuple | list
) -> Deduction:
    """Eliminations, a placement read as removing its cell's other candidates."""
    out = set(eliminations)
    for cell, digit in placements:
        out |= {(cell, d) for d in range(1, 10) if grid.cands[cell] >> (d - 1) & 1 and d != digit}
    return frozenset(out)


def judge(case: Case, grid: CandidateGrid, found: list) -> str:
    """The outcome of one case: pass, more, fewer, other or none."""
    if case.variant == "x":
        return "pass" if not found else "other"
    if not found:
        return "none"
    expected = deduction(grid, case.eliminations, case.placements)
    made = [deduction(grid, s.eliminations, s.placements) for s in found]
    if expected in made:
        return "pass"
    if any(expected < m for m in made):
        return "more"
    if any(m < expected for m in made):
        return "fewer"
    return "other"


def unsound(grid: CandidateGrid, found: list) -> int:
    """Instances that remove the solution's digit or place another (0 when the digits do not
    have exactly one solution)."""
    outcome = solve_line("".join(map(str, grid.values)))
    if outcome.status is not Status.SOLVED:
        return 0
    return sum(bool(step.contradictions(outcome.solution)) for step in found)


def _text(eliminations: tuple | list, placements: tuple | list = ()) -> str:
    parts = [f"{cell_name(c)}={d}" for c, d in sorted(placements)]
    parts += [f"{cell_name(c)}<>{d}" for c, d in sorted(eliminations)]
    return " ".join(parts) or "(nothing)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reglib", type=Path, help="HoDoKu's reglib-1.3.txt")
    parser.add_argument("--details", action="store_true", help="list every case not passed")
    args = parser.parse_args()
    if not args.reglib.is_file():
        sys.exit(f"no such file: {args.reglib}")
    cases = read_cases(args.reglib)
    counts: dict[str, Counter] = defaultdict(Counter)
    skipped: Counter = Counter()
    wrong = 0
    details = []
    start = time.perf_counter()
    for case in cases:
        name = CODES.get(case.code)
        if name is None:
            skipped[case.code] += 1
            continue
        grid = state(case)
        found = list(islice(all_steps(grid.copy(), only=name), MAX_STEPS))
        outcome = judge(case, grid, found)
        counts[case.code][outcome] += 1
        wrong += unsound(grid, found)
        if outcome != "pass":
            best = found[0] if found else None
            details.append(
                f"line {case.line} {case.code}{'-' + case.variant if case.variant else ''} "
                f"{name}: {outcome}; expected {_text(case.eliminations, case.placements)}; "
                f"first found {_text(best.eliminations, best.placements) if best else '-'}"
            )
    seconds = time.perf_counter() - start
    print(
        f"{args.reglib.name}: {sum(sum(c.values()) for c in counts.values())} cases read with "
        f"our techniques in {seconds:.0f} s; unsound steps among all instances: {wrong}"
    )
    print(f"{'code':6} {'technique':33} {'cases':>5} " + " ".join(f"{o:>5}" for o in OUTCOMES))
    for code in sorted(counts):
        c = counts[code]
        cells = " ".join(f"{c[o]:5d}" for o in OUTCOMES)
        print(f"{code:6} {CODES[code]:33} {sum(c.values()):5d} {cells}")
    print("per family (passed / cases):")
    total = passed = 0
    for prefix, family in FAMILIES.items():
        group = [counts[code] for code in counts if code.startswith(prefix)]
        n, p = sum(sum(c.values()) for c in group), sum(c["pass"] for c in group)
        total, passed = total + n, passed + p
        if n:
            print(f"  {family:24} {p:4d} / {n:4d}  {p / n:6.1%}")
    print(f"  {'all':24} {passed:4d} / {total:4d}  {passed / max(total, 1):6.1%}")
    print(
        "HoDoKu codes without a counterpart here (cases): "
        + ", ".join(f"{code} ({n})" for code, n in sorted(skipped.items()))
    )
    if args.details:
        print(*details, sep="\n")


if __name__ == "__main__":
    main()
