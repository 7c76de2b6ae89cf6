#!/usr/bin/env python3
"""Split the blind labelled sets into a development half and a test half.

Run once, when the writers have finished and before anyone reads a
conversation:

    python3 split_blind.py /work/blind/leads/set_a.json /work/blind/leads/set_b.json

Deterministic: within each (language, expected tier) stratum the cases are
ordered by the SHA-256 of their id and dealt alternately, so each half holds
half of every language and tier (an odd stratum gives its extra case to dev
or test by the SHA-256 of the stratum's name, so one set's split does not
depend on the others). Only ids,
languages and labels are read; the output keeps every case exactly as the
writers wrote it.
"""
import collections
import hashlib
import json
import sys


def main(paths):
    cases = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            cases.extend(json.load(f))
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "duplicate ids"
    strata = collections.defaultdict(list)
    for c in cases:
        strata[(c["language"], c["expected"])].append(c)
    dev, test = [], []
    for key in sorted(strata):
        # The stratum's own hash decides whether its odd case goes to dev
        # or test, so a set's split does not depend on the other sets.
        k = hashlib.sha256(("%s/%s" % key).encode()).digest()[0]
        group = sorted(strata[key], key=lambda c: hashlib.sha256(c["id"].encode()).hexdigest())
        for i, c in enumerate(group):
            (dev if (i + k) % 2 == 0 else test).append(c)
    order = {c["id"]: i for i, c in enumerate(cases)}
    for name, half in (("blind_dev.json", dev), ("blind_test.json", test)):
        half.sort(key=lambda c: order[c["id"]])
        with open(name, "w", encoding="utf-8") as f:
            json.dump(half, f, ensure_ascii=False, indent=1)
            f.write("\n")
        by = collections.Counter(c["language"] for c in half)
        print(name, len(half), sorted(by.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
