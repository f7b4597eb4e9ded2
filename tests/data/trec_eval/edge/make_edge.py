"""Write the edge-case qrels and run of tests/test_treceval_cli.py (deterministic; run from this folder).

Topics: ``a`` graded 0-4 with a gap (no 2) and -1 labels (in the pool, unjudged); ``b`` no relevant document;
``c`` one relevant document; ``d`` judged but absent from the run (evaluated only with ``-c``); ``e`` the run
retrieves only documents the qrels do not list (empty after ``-J``); ``f`` labels 0-2 and every score tied;
``g`` only -1 labels. The run also has a topic the qrels lack (``z``), lines with fields after the sixth, a
comment, a blank line, and 30 documents for ``a`` (``-M`` cuts it).
"""
import random

rng = random.Random(20261129)
qrels, run = [], []
docs_a = [f"A{i:02d}" for i in range(40)]
for i, d in enumerate(docs_a[:25]):
    qrels.append(("a", d, [0, 1, 3, 4, -1][i % 5]))
qrels += [("b", f"B{i}", 0) for i in range(6)]
qrels += [("c", "C0", 1)] + [("c", f"C{i}", 0) for i in range(1, 5)]
qrels += [("d", "D0", 2), ("d", "D1", 0)]
qrels += [("e", "E0", 1), ("e", "E1", 0)]
qrels += [("f", f"F{i}", i % 3) for i in range(12)]
qrels += [("g", "G0", -1), ("g", "G1", -1)]

for i, d in enumerate(rng.sample(docs_a, 30)):
    run.append(("a", d, 1000 - i * 7 + (i % 3) * 7))       # ties between neighbours
for i, d in enumerate(rng.sample([f"B{i}" for i in range(8)], 8)):
    run.append(("b", d, 5.0 - i))
for i, d in enumerate(["C3", "X1", "C0", "C1"]):
    run.append(("c", d, 1.5 - 0.25 * i))
run += [("e", f"EX{i}", 3.0 - i) for i in range(3)]
run += [("f", f"F{i}", 1.0) for i in rng.sample(range(14), 14)]  # F12, F13 are not judged
run += [("g", "G0", 2.0), ("g", "G9", 1.0)]
run += [("z", "Z1", 1.0)]

# Written only when run as a script: pytest's --doctest-modules imports every module under tests/, and an import
# wrote these files into the directory pytest ran from (the checkout's root), from every xdist worker at once.
if __name__ == "__main__":
    with open("qrels.edge", "w") as f:
        f.writelines(f"{q} 0 {d} {r}\n" for q, d, r in qrels)
    with open("qrels.edge.nod", "w") as f:
        f.writelines(f"{q} 0 {d} {r}\n" for q, d, r in qrels if q != "d")
    with open("results.edge", "w") as f:
        f.write("# a comment line\n")
        for k, (q, d, s) in enumerate(run):
            extra = " trailing fields ignored" if k % 7 == 3 else ""
            f.write(f"{q}\tQ0\t{d}\t{k + 1}\t{s}\tedgeRun{extra}\n")
            if k == 10:
                f.write("\n")
