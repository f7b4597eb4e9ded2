"""Loading that scales (docs/benchmarks.md section 10): streaming, the hashed judgment lookup, the qrels fast
path, the byte-bounded cache and the synthetic collection generator.

Every expectation comes from a plain reference written here (dicts and
sorted() over the text, as trec_eval reads it), from pytrec_eval, or from
tests/reference.py - never from the code under test.
"""
from __future__ import annotations

import gc
import gzip
import importlib.util
import struct
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from reference import ref_q_measure

import evalcore
from evalcore import _cache, metrics
from evalcore.io import _assemble as assemble
from evalcore.io import _dochash as dochash
from evalcore.io import _qrels as qrels_mod
from evalcore.io import read_run

ROOT = Path(__file__).resolve().parents[1]


# -- plain references ----------------------------------------------------------
def plain_qrels(text: str) -> dict[tuple[str, str], int]:
    """(topic, doc) -> level, negative labels as 0: read line by line, as trec_eval's get_qrels does."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if f:
            out[(f[0], f[2])] = max(int(f[3]), 0)
    return out


def plain_run(text: str) -> dict[str, list[str]]:
    """topic -> doc ids in trec_eval's order: score (as a C float) descending, then doc id descending."""
    by_topic: dict[str, list[tuple[float, str]]] = {}
    for line in text.splitlines():
        f = line.split()
        if f:
            s = struct.unpack("f", struct.pack("f", float(f[4])))[0]
            by_topic.setdefault(f[0], []).append((s, f[2]))
    return {t: [d for s, d in sorted(v, key=lambda x: (x[0], x[1].encode()), reverse=True)]
            for t, v in by_topic.items()}


def plain_levels(qrels: dict, run: dict, topics: tuple[str, ...], depth: int):
    lv = np.zeros((len(topics), depth), np.int8)
    unj = np.zeros((len(topics), depth), bool)
    for i, t in enumerate(topics):
        for r, d in enumerate(run.get(t, [])[:depth]):
            lv[i, r] = qrels.get((t, d), 0)
            unj[i, r] = (t, d) not in qrels
    return lv, unj


# -- streaming on clef2015 -----------------------------------------------------
def test_clef2015_tensor_equals_plain_reference(clef2015, clef2015_collection):
    """The streamed, hash-looked-up tensor equals a plain dict/sorted() reading of the files."""
    c = clef2015_collection
    qrels = plain_qrels((clef2015 / "qrels.txt").read_text())
    files = sorted((clef2015 / "runs").glob("*.dat.gz"))
    for f in files[::7]:  # 5 of the 30 runs: the plain reading is slow
        r = next(i for i, name in enumerate(c.run_ids) if f.name.startswith(name))
        run = plain_run(gzip.open(f, "rt").read())
        lv, unj = plain_levels(qrels, run, c.topic_ids, c.depth)
        assert np.array_equal(c.levels[r], lv), f.name
        assert np.array_equal(c.unjudged[r], unj), f.name
        assert c.lengths[r].tolist() == [len(run.get(t, [])) for t in c.topic_ids]


def test_clef2015_qrels_fast_path_equals_plain_reference(clef2015):
    q = evalcore.io.read_qrels(clef2015 / "qrels.txt")
    ref = plain_qrels((clef2015 / "qrels.txt").read_text())
    got = {(t, d): int(v) for t, d, v in q.frame.itertuples(index=False, name=None)}
    assert got == ref
    assert q.n_lines == len(ref) and sum(q.level_judgments.values()) == len(ref)


@pytest.mark.parametrize("text, warning", [
    (b"t1 0 d1 1\nt1 0 d2 -2\nt2 0 d1 2\r\nt2 0 d3 -02\n",
     "q.txt: 2 judgments with a negative label (e.g. line 2: -2) count as non-relevant"),
    (b"t1 0 d1 1\n\nt1 0 d2 -1\n",  # a blank line: the line loop reports the line number
     "q.txt: 1 judgment with a negative label (e.g. line 3: -1) count as non-relevant"),
    (b"t1 0 d1 1\nt1 0 d1 1\n",
     "q.txt: 1 duplicate judgment (same topic, document and level; e.g. line 2) counted once"),
])
def test_qrels_warnings_name_the_line(text, warning):
    q = evalcore.io.read_qrels(("q.txt", text))
    assert q.warnings == [warning]
    assert {(t, d): int(v) for t, d, v in q.frame.itertuples(index=False, name=None)} == plain_qrels(text.decode())


def test_qrels_conflicting_duplicate_still_an_error():
    with pytest.raises(evalcore.InputError, match="judged twice .* line 1"):
        evalcore.io.read_qrels(("q.txt", b"t1 0 d1 1\nt1 0 d1 2\n"))


# -- memory: one run's text at a time ------------------------------------------
def test_at_most_two_runs_in_memory_at_once(monkeypatch):
    """Runs are streamed: the reader thread reads one run ahead of the one being placed, and
    a run's columns and parsed form are dropped once it is placed - never more than two runs alive."""
    alive, peak, lock = [0], [0], threading.Lock()
    real_read, real_finish = assemble.read_run_file, assemble.finish_run
    import weakref

    def count(obj):
        with lock:
            alive[0] += 1
            peak[0] = max(peak[0], alive[0])

        def gone():
            with lock:
                alive[0] -= 1
        weakref.finalize(obj, gone)

    def read(*a, **k):
        cols = real_read(*a, **k)
        count(cols)
        time.sleep(0.002)  # the reader never runs further ahead, however fast it is
        return cols

    def finish(cols, *a, **k):
        p = real_finish(cols, *a, **k)
        if p is not cols:
            count(p)
        return p

    monkeypatch.setattr(assemble, "read_run_file", read)
    monkeypatch.setattr(assemble, "finish_run", finish)
    qrels = ("q.txt", b"".join(b"t%d 0 d%d 1\n" % (t, t) for t in range(5)))
    runs = [(f"r{i}.txt", b"".join(b"t%d Q0 d%d 1 %d.0 x\n" % (t, j, j) for t in range(5) for j in range(50)))
            for i in range(12)]
    c = evalcore.load_collection(qrels, runs)
    gc.collect()
    assert c.n_runs == 12 and alive[0] == 0
    # the run being placed (its columns and its parsed form, briefly both) + the one read ahead
    assert peak[0] <= 3, f"{peak[0]} run objects alive at once"


def test_tensor_grows_to_the_longest_list_and_respects_depth():
    """Runs whose longest list grows from run to run (the tensor is re-sized while streaming)."""
    qrels = ("q.txt", b"t1 0 d3 1\nt2 0 d0 2\n")
    runs = []
    for i, n in enumerate((1, 4, 2, 9, 3)):
        runs.append((f"r{i}.txt", "".join(f"t1 Q0 d{j} {j} {100 - j} x\nt2 Q0 d{j} {j} {100 - j} x\n"
                                          for j in range(n)).encode()))
    q = plain_qrels(qrels[1].decode())
    for depth in (None, 5):
        c = evalcore.load_collection(qrels, runs, depth=depth)
        D = 9 if depth is None else 5
        assert c.levels.shape == (5, 2, D) and c.levels.flags.c_contiguous
        for r, (_, text) in enumerate(runs):
            lv, unj = plain_levels(q, plain_run(text.decode()), ("t1", "t2"), D)
            assert np.array_equal(c.levels[r], lv) and np.array_equal(c.unjudged[r], unj)


# -- hashing: collisions never change a result ------------------------------------
def test_hash_equal_strings_equal_hashes_any_slice():
    strs = ["", "a", "abcdefgh", "abcdefghi", "é" * 5, "x" * 300, "x" * 301, "LA0119-9", "FT934-1"] * 3
    a = pa.array(strs)
    h = dochash.hash_strings(a)
    for i, s in enumerate(strs):
        assert h[i] == dochash.hash_strings(pa.array([s]))[0] == \
            dochash.hash_strings(pa.array([s], pa.large_string()))[0]
    assert (dochash.hash_strings(a.slice(2, 5)) == h[2:7]).all()
    assert len(set(h[:9].tolist())) == 9


def test_every_hash_colliding_gives_the_same_collection(monkeypatch):
    """With a hash that maps every id to one of 2 values, every match goes through the string checks
    (run duplicates, judged keys sharing a slot): the tensor must still equal the plain reference."""
    real = dochash.hash_strings
    qtext = "".join(f"t{t} 0 d{j} {(j // 3) % 3}\n" for t in range(3) for j in range(0, 40, 3))
    rtext = "".join(f"t{t} Q0 d{j} {j} {(50 - j) // 2} x\n" for t in range(4) for j in range(30))
    back = "".join(reversed(rtext.splitlines(keepends=True)))
    qrels, runs = ("q.txt", qtext.encode()), [("a.txt", rtext.encode()), ("b.txt", back.encode())]
    for mod in (assemble, qrels_mod, evalcore.io._order):
        monkeypatch.setattr(mod, "hash_strings", lambda arr: real(arr) % np.uint64(2))
    real_block = dochash.hash_block

    def block(s, keep=0):
        h, words = real_block(s, keep)
        return h % np.uint64(2), words
    monkeypatch.setattr(assemble, "hash_block", block)
    monkeypatch.setattr(dochash, "BLOCK_ROWS", 7)  # blocks end mid-topic, and a run is several blocks
    c = evalcore.load_collection(qrels, runs)
    q = plain_qrels(qtext)
    for r, (_, text) in enumerate(runs):
        lv, unj = plain_levels(q, plain_run(text.decode()), c.topic_ids, c.depth)
        assert np.array_equal(c.levels[r], lv) and np.array_equal(c.unjudged[r], unj)
    with pytest.raises(evalcore.InputError, match="twice"):
        evalcore.load_collection(qrels, [("dup.txt", b"t1 Q0 d1 1 2 x\nt1 Q0 d2 2 1 x\nt1 Q0 d1 3 0 x\n")])


def _random_ids(rng, n: int) -> list[str]:
    """Ids of every length class the word reader treats apart: empty-free, 1-7 bytes (one masked word),
    8-16 (two overlapping words), 17-32, over 32 (compared by arrow), over 256 (hashed on a prefix),
    multi-byte UTF-8, and long ids sharing a 256-byte prefix."""
    alpha = np.array(list("ab-0") + ["é", "字"])
    out = set()
    while len(out) < n:
        L = int(rng.choice([1, 2, 3, 5, 7, 8, 9, 11, 15, 16, 17, 24, 31, 32, 33, 40, 64, 255, 256, 257, 300]))
        s = "".join(rng.choice(alpha, L))
        out.add(s)
        if L > 250:
            out.add("p" * 256 + s)
    return sorted(out)


def test_same_rows_is_string_equality():
    rng = np.random.default_rng(7)
    ids = _random_ids(rng, 300) + ["x" * 300, "x" * 299 + "y", "x" * 301]
    pairs = []  # the same length, one byte different, anywhere (so every word is compared)
    for x in ids[:200]:
        i = int(rng.integers(0, len(x)))
        pairs.append((x, x[:i] + ("b" if x[i] != "b" else "a") + x[i + 1:]))
    ids = sorted(set(ids) | {t for _, t in pairs})
    pos = {x: i for i, x in enumerate(ids)}
    ra = rng.integers(0, len(ids), 5000)
    rb = ra.copy()
    rb[::3] = rng.integers(0, len(ids), rb[::3].size)  # some equal, some not
    ra[1:401:2] = [pos[x] for x, _ in pairs]
    rb[1:401:2] = [pos[t] for _, t in pairs]
    other = ids[::-1]
    rb_o = len(ids) - 1 - rb  # same strings, in another array (large_string, reversed, sliced)
    expected = np.array([ids[i] == ids[j] for i, j in zip(ra, rb, strict=True)])
    a = dochash.Strings.of(pa.array(["pad"] + ids, pa.string()).slice(1))
    for typ in (pa.string(), pa.large_string()):
        for max_words in (1, 2, 4, 40):
            b = dochash.HashTable(pa.array(other, typ), max_words=max_words)
            assert np.array_equal(dochash.same_rows(a, ra, b, rb_o), expected), (typ, max_words)


def test_hash_depends_on_the_string_only():
    rng = np.random.default_rng(8)
    ids = _random_ids(rng, 400)
    h = dochash.hash_strings(pa.array(ids))
    for i in range(0, len(ids), 13):  # alone, at a buffer's start or end, after a long id, as large_string
        for ctx, j in ((pa.array([ids[i]]), 0), (pa.array([ids[i], "q" * 40]), 0), (pa.array(["q" * 40, ids[i]]), 1),
                       (pa.array(["z" * 300, ids[i]], pa.large_string()).slice(1), 0)):
            assert dochash.hash_strings(ctx)[j] == h[i], ids[i]
    by_hash = {}
    for s, x in zip(ids, h.tolist(), strict=True):
        b = s.encode()
        by_hash.setdefault(x, set()).add((b[:256], len(b)))
    assert all(len(v) == 1 for v in by_hash.values())  # no collision among these (past 256 bytes: by design)


@pytest.mark.parametrize("block_rows", [None, 1, 13])
def test_lookup_with_ids_of_every_length_equals_plain_reference(monkeypatch, block_rows):
    """Judged and unjudged ids of every length class (prefixes shared past 256 bytes, one id a prefix of
    another): the tensor equals the plain dict reading, so no hash or word shortcut changes a level -
    also when the hashing and lookup blocks (``dochash.BLOCK_ROWS``) split the run anywhere."""
    if block_rows is not None:
        monkeypatch.setattr(dochash, "BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(9)
    ids = _random_ids(rng, 120)
    ids += [ids[0] + "x", ids[5][:-1] or "k"]
    qlines, rlines = [], []
    for t in ("q1", "q2", "q10"):
        judged = rng.choice(len(ids), 60, replace=False)
        qlines += [f"{t} 0 {ids[i]} {int(rng.integers(0, 3))}" for i in judged] + [f"{t} 0 rel-{t} 1"]
        for r, i in enumerate(rng.choice(len(ids), 80, replace=False)):
            rlines.append(f"{t} Q0 {ids[i]} {r + 1} {100 - r} x")
    qtext, rtext = "\n".join(qlines) + "\n", "\n".join(rlines) + "\n"
    c = evalcore.load_collection(("q.txt", qtext.encode()), [("r.txt", rtext.encode())])
    lv, unj = plain_levels(plain_qrels(qtext), plain_run(rtext), c.topic_ids, c.depth)
    assert np.array_equal(c.levels[0], lv) and np.array_equal(c.unjudged[0], unj)
    assert c.unjudged.sum() > 0 and (c.levels > 0).sum() > 0


@pytest.mark.parametrize("bits, bits2", [(1, 1), (3, None), (6, 1), (3, 2), (None, None)])
def test_slot_table_shared_slots_give_the_same_collection(monkeypatch, bits, bits2):
    """Slot tables so small that most slots hold several judged keys (then the second table, on the
    keys' low bits, and where that is shared too a binary search, finds the key) or a key whose top
    bits match another's: the tensor still equals the plain reference."""
    real = assemble._slot_bits

    def small(n, least=16, most=24):
        first = most == 24
        b = bits if first else bits2
        return real(n, least, most) if b is None else b
    monkeypatch.setattr(assemble, "_slot_bits", small)
    rng = np.random.default_rng(10)
    qtext = "".join(f"t{t} 0 d{j} {int(rng.integers(0, 3))}\n" for t in range(5) for j in rng.choice(300, 60, False))
    qtext += "".join(f"t{t} 0 rel{t} 1\n" for t in range(5))
    rtext = "".join(f"t{t} Q0 d{j} {r + 1} {200 - r} x\n" for t in range(6)
                    for r, j in enumerate(rng.choice(300, 100, False)))
    c = evalcore.load_collection(("q.txt", qtext.encode()), [("r.txt", rtext.encode())])
    lv, unj = plain_levels(plain_qrels(qtext), plain_run(rtext), c.topic_ids, c.depth)
    assert np.array_equal(c.levels[0], lv) and np.array_equal(c.unjudged[0], unj)
    assert (c.levels > 0).sum() > 20 and c.unjudged.sum() > 100


def test_slot_shared_with_the_same_id_under_another_topic(monkeypatch):
    """A one-bit slot table: a row's slot often holds the judged key of the *same* id under another
    topic - the key must still differ, so the row stays unjudged."""
    monkeypatch.setattr(assemble, "_slot_bits", lambda n, *limits: 1)
    for i in range(20):
        qtext = f"t1 0 a{i} 1\nt2 0 b{i} 2\n"
        rtext = f"t1 Q0 b{i} 1 2 x\nt1 Q0 a{i} 2 1 x\nt2 Q0 a{i} 1 2 x\nt2 Q0 b{i} 2 1 x\n"
        c = evalcore.load_collection(("q.txt", qtext.encode()), [("r.txt", rtext.encode())])
        assert c.levels[0].tolist() == [[0, 1], [0, 2]] and c.unjudged[0].tolist() == [[True, False], [True, False]]


# -- trec_eval's order, without a full sort when the file is in score order -------------
def _run_text(rows) -> str:
    return "".join(f"{t} Q0 {d} {i + 1} {s} tag\n" for i, (t, d, s) in enumerate(rows))


@pytest.mark.parametrize("layout", ["sorted", "ties_in_doc_order", "shuffled", "topics_unnatural",
                                    "topics_interleaved", "one_rise", "float32_ties", "signed_zero"])
def test_score_order_equals_plain_sort(layout):
    """Every layout of a run file - already in trec_eval's order or not - gives the order of a plain
    sorted() (score as a C float descending, then doc id descending byte-wise)."""
    rng = np.random.default_rng(abs(hash(layout)) % 2**32)
    topics = ["q1", "q2", "q10", "q11"]
    rows = []
    for t in topics:
        n = int(rng.integers(30, 60))
        docs = rng.choice(10_000, n, replace=False)
        scores = np.sort(np.round(rng.uniform(0, 5, n), 1))[::-1]  # many ties
        if layout == "float32_ties":  # equal as C floats, distinct as doubles
            scores = np.array([f"{1 + 1e-9 * (n - i):.10f}" if i % 3 else f"{2 - 0.25 * i}" for i in range(n)])
        if layout == "signed_zero":
            scores = np.array(["1.5", "0", "-0", "0.0", "-0.0", "-1"] * (n // 6 + 1))[:n]
        trs = [(t, f"D{d}" + "x" * int(d % 13), s) for d, s in zip(docs, scores, strict=True)]
        if layout == "ties_in_doc_order":
            trs.sort(key=lambda r: (float(r[2]), r[1].encode()), reverse=True)
        rows.extend(trs)
    if layout == "shuffled":
        rng.shuffle(rows)
    elif layout == "topics_unnatural":
        rows.sort(key=lambda r: r[0], reverse=True)  # q2, q11, q10, q1: grouped, not in natural order
    elif layout == "topics_interleaved":
        rows = [r for k in range(60) for r in rows if int(r[1][1:].rstrip("x")) % 60 == k]
    elif layout == "one_rise":
        i = len(rows) // 2
        rows[i], rows[i + 5] = rows[i + 5], rows[i]
    text = _run_text(rows)
    run = read_run(("r.txt", text.encode()))
    expected = plain_run(text)
    assert {t: run.ranking(t) for t in run.topics} == expected


@pytest.mark.parametrize("layout", ["grouped", "interleaved", "one_topic", "one_row", "blocks_repeat"])
def test_topic_codes_equal_dictionary_encode(layout):
    """The block-wise topic reading gives exactly arrow's dictionary encoding (values in order of first
    appearance, one index per row), whatever the layout."""
    import pyarrow.compute as pc

    from evalcore.io._order import _topic_codes
    rng = np.random.default_rng(11)
    names = ["q1", "q10", "q2", "é", "q1 ", "Q1"]
    rows = {"grouped": [n for n in names for _ in range(40)],
            "interleaved": [names[i] for i in rng.integers(0, len(names), 300)],
            "one_topic": ["q7"] * 50, "one_row": ["q7"],
            "blocks_repeat": [n for n in names * 3 for _ in range(30)]}[layout]
    t = pa.array(rows)
    vals, codes = _topic_codes(t)
    enc = pc.dictionary_encode(t)
    assert vals == tuple(enc.dictionary.to_pylist())
    assert codes.tolist() == enc.indices.to_pylist()


# -- the per-collection cache is bounded by bytes ----------------------------------
def test_bytes_lru_keeps_within_budget_and_drops_dead_owners():
    cache = _cache.BytesLRU(max_bytes=1000)

    class Owner:
        pass

    a, b = Owner(), Owner()
    for i in range(10):
        cache.get(a, i, lambda: np.zeros(40))  # 320 bytes each
        assert cache.nbytes <= 1000
    assert len(cache) == 3 and cache.nbytes == 960
    assert cache.get(a, 9, lambda: pytest.fail("a hit must not recompute")) is not None
    big = cache.get(b, "big", lambda: np.zeros(1000))
    assert big.size == 1000 and cache.nbytes == 960  # larger than the budget: returned, not kept
    with pytest.raises(ValueError):
        big[0] = 1  # cached values are read-only
    del a
    gc.collect()
    assert len(cache) == 0 and cache.nbytes == 0


def test_bytes_lru_by_key_keeps_the_newest_and_bounds_bytes_and_entries():
    """The dashboard's side of the one cache (lookup / put): a DataFrame counts 1,664 bytes + 680 a block
    + 16 a column + 8 a cell, an array its nbytes, a string sys.getsizeof, a dict its values + 64 bytes an
    item; the least recently used entry goes first, the newest is kept even when it alone is over the
    budget; max_entries bounds the count."""
    import pandas as pd

    frame = pd.DataFrame({"x": np.zeros(100), "y": np.ones(100)})   # 1664 + 680 + 2 * 16 + 8 * 200 = 3976
    assert _cache.nbytes({"f": frame, "a": np.zeros(10), "s": "text"}) == 3 * 64 + 3976 + 80 + sys.getsizeof("text")
    mixed = pd.DataFrame({"m": pd.array(["AP"], dtype="string"), "a": [0.05], "n": [3],
                          "s": pd.array(["x"], dtype="string")})   # 2 extension columns, float, int: 4 blocks
    assert _cache.nbytes(mixed) == 1664 + 4 * 680 + 4 * 16 + 8 * 4
    cache = _cache.BytesLRU(max_bytes=9000)
    for k in range(3):
        cache.put(k, {"f": frame})
    assert len(cache) == 2 and cache.nbytes == 2 * (64 + 3976) and cache.lookup(0) is None
    assert cache.lookup(1) is not None                  # now the most recently used: 2 goes next
    cache.put(3, np.zeros(1200))                        # 9600 bytes, over the whole budget: kept alone
    assert len(cache) == 1 and cache.lookup(3) is not None and cache.nbytes == 9600
    cache.put(3, np.zeros(10))                          # replacing an entry replaces its size
    assert cache.nbytes == 80
    counted = _cache.BytesLRU(max_bytes=None, max_entries=2)
    for k in range(5):
        counted.put(k, np.zeros(10**6))
    assert [k for k in range(5) if counted.lookup(k) is not None] == [3, 4] and counted.nbytes == 0


def test_metric_cache_bounded_and_values_follow_the_equations(monkeypatch):
    """Many gain settings under a small budget: the cache stays within it, and Q-measure still equals
    the plain per-list reference (tests/reference.py) for every setting."""
    c = evalcore.simulated_collection(12, 6, seed=3)
    monkeypatch.setattr(metrics, "cache", _cache.BytesLRU(max_bytes=4 * c.hits.level.size * 8 * 4))
    rng = np.random.default_rng(0)
    for _ in range(12):
        g = sorted(rng.uniform(0.5, 5, c.max_level).tolist())
        got = evalcore.score_matrix(c, "Q-measure", gains=g)
        assert metrics.cache.nbytes <= metrics.cache.max_bytes
        for r in range(c.n_runs):
            for t in range(c.n_topics):
                ref = ref_q_measure(c.levels[r, t, :c.lengths[r, t]].tolist(), c.level_counts[t].tolist(), gains=g)
                assert got[r, t] == pytest.approx(ref, abs=1e-12)


# -- the generator --------------------------------------------------------------------
def _gen():
    spec = importlib.util.spec_from_file_location("gen_scale", ROOT / "benchmarks" / "gen_scale.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gen_scale_deterministic_and_read_like_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    gen = _gen()
    a = gen.generate((3, 4, 30), [0.00024], 7, tmp_path / "a")
    b = gen.generate((3, 4, 30), [0.00024], 7, tmp_path / "b")
    other = gen.generate((3, 4, 30), [0.00024], 8, tmp_path / "c")
    files = sorted((a / "all").iterdir())
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in sorted((b / "all").iterdir())]
    assert (a / "qrels.txt").read_bytes() == (b / "qrels.txt").read_bytes()
    assert files[0].read_bytes() != sorted((other / "all").iterdir())[0].read_bytes()
    assert len(list((a / "0.00024M").iterdir())) == 2  # 240 lines = 2 runs of 4 x 30
    scores = [float(line.split()[4]) for line in files[0].read_text().splitlines()]
    assert len(scores) != len(set(scores))  # score ties, so the doc-id tie break matters
    c = evalcore.load_collection(a / "qrels.txt", a / "all")
    with open(a / "qrels.txt") as fh:
        ev = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(fh), {"map", "ndcg_cut.10"})
    ap = evalcore.score_matrix(c, "AP")
    nd = evalcore.score_matrix(c, "MSnDCG@10")
    for r, f in enumerate(files):
        with open(f) as fh:
            res = ev.evaluate(pytrec_eval.parse_run(fh))
        for t, topic in enumerate(c.topic_ids):
            assert ap[r, t] == pytest.approx(res[topic]["map"], abs=1e-9)
            assert nd[r, t] == pytest.approx(res[topic]["ndcg_cut_10"], abs=1e-9)


# -- the CLI's import path ------------------------------------------------------------
def test_cli_evaluate_does_not_import_meta():
    """Every CLI call pays its imports: `evaluate` must not pull in evalcore.meta (the other
    subcommands and --help still list and run everything)."""
    import subprocess
    import sys

    code = ("import sys; from evalcore import cli; rc = cli.main(['evaluate', '--paper-examples', '--metrics', 'AP']);"
            "print('META' if 'evalcore.meta' in sys.modules else 'LEAN', rc, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert r.stderr.split()[-2:] == ["LEAN", "0"], r.stderr
    # 003 Fig. 3 system X: one B document at rank 1 of topic T3 (R = 3): AP 1/3 there, 0 on T1, T2
    assert "X\tall\tAP\t0.111111111111" in r.stdout
    r = subprocess.run([sys.executable, "-m", "evalcore", "--help"], capture_output=True, text=True, cwd=ROOT,
                       check=True)
    assert "bootstrap" in r.stdout and "evaluate" in r.stdout


# -- repeated documents: found in any layout of a run file ------------------------------
_LAYOUTS = ["equal_topics", "unequal_topics", "one_long_topic", "interleaved"]


@pytest.mark.parametrize("layout", _LAYOUTS)
def test_may_repeat_equals_a_set_reference(layout):
    """``order._may_repeat`` (per-topic sorts, or pandas' hash set) answers exactly as a Python set
    does, on random keys with and without a planted repeat, in every file layout."""
    from evalcore.io._order import _may_repeat
    rng = np.random.default_rng(100 + _LAYOUTS.index(layout))  # (a fixed seed per layout)
    for trial in range(60):
        n_topics = int(rng.integers(1, 12))
        lens = {"equal_topics": np.full(n_topics, int(rng.integers(1, 40))),
                "unequal_topics": rng.integers(1, 40, n_topics),
                "one_long_topic": np.append(rng.integers(1, 3, n_topics - 1), 500),
                "interleaved": rng.integers(1, 40, n_topics)}[layout]
        tind = np.repeat(np.arange(len(lens)), lens)
        if layout == "interleaved":
            rng.shuffle(tind)
        keys = rng.integers(1 << 40, 1 << 63, tind.size, dtype=np.uint64)
        if trial % 2 and tind.size > 1:  # a repeat within one topic
            t = int(rng.choice(np.flatnonzero(np.bincount(tind) > 1))) if (np.bincount(tind) > 1).any() else None
            if t is not None:
                i, j = rng.choice(np.flatnonzero(tind == t), 2, replace=False)
                keys[j] = keys[i]
        n_first = len(np.unique(tind))
        first = {v: k for k, v in enumerate(dict.fromkeys(tind.tolist()))}
        tind = np.array([first[v] for v in tind.tolist()], np.int32)  # numbered by first appearance
        expected = len(set(zip(tind.tolist(), keys.tolist(), strict=True))) < tind.size
        assert _may_repeat(keys, tind, n_first) == expected, (layout, trial)


def test_may_repeat_pads_and_shared_top_bits_never_hide_a_repeat():
    """Shorter topics are padded with 0, 1, 2, ...; short topics compare the keys' top 32 bits first.
    Keys equal to a pad or sharing their top 32 bits get the exact answer of a set (short topics: the
    whole keys are checked next) or True (topics past 23,170 rows, padded with 64-bit numbers) -
    never False for a real repeat."""
    from evalcore.io._order import _may_repeat
    tind = np.array([0, 0, 0, 1], np.int32)
    hi = np.uint64(5 << 32)
    assert not _may_repeat(np.array([7, 8, 9, 1], np.uint64), tind, 2)  # key 1 = a whole-key pad of topic 1
    assert not _may_repeat(np.array([7, 8, 9, 10], np.uint64) + hi, tind, 2)  # same top bits, distinct keys
    assert _may_repeat(np.array([7, 7, 9, 1], np.uint64) + hi, tind, 2)
    long = np.arange(23_171, dtype=np.uint64) * np.uint64(2**40) + np.uint64(3)  # 64-bit path: pads 0, 1, ...
    tind = np.repeat(np.array([0, 1], np.int32), [long.size, 2])
    assert not _may_repeat(np.append(long, [np.uint64(9 << 40), np.uint64(7 << 41)]), tind, 2)
    assert _may_repeat(np.append(long, [np.uint64(5), np.uint64(7 << 41)]), tind, 2)  # a key equal to pad 5
    assert _may_repeat(np.append(long, [np.uint64(9 << 40), np.uint64(9 << 40)]), tind, 2)


@pytest.mark.parametrize("lens", [(5, 5, 5), (1, 7, 3), (40, 1, 1)])
def test_repeated_document_found_whatever_the_topic_lengths(lens):
    """A document listed twice in one topic is the error naming its line, and the same document in two
    topics is not, for grouped topics of equal and unequal length."""
    lines = [f"t{t} Q0 d{j} {j + 1} {100 - j} x" for t, n in enumerate(lens) for j in range(n)]
    ok = ("\n".join(lines) + "\n").encode()
    c = evalcore.load_collection(("q.txt", b"t0 0 d0 1\nt1 0 d0 1\nt2 0 d0 1\n"), [("r.txt", ok)])
    assert c.levels[0, :, 0].tolist() == [1, 1, 1]
    t = int(np.argmax(lens))
    last = sum(lens[:t + 1])  # after the longest topic's last line: its first document again
    bad = lines[:last] + [f"t{t} Q0 d0 99 0 x"] + lines[last:]
    with pytest.raises(evalcore.InputError) as ei:
        evalcore.load_collection(("q.txt", b"t0 0 d0 1\n"), [("r.txt", ("\n".join(bad) + "\n").encode())])
    assert ei.value.line == last + 1 and "listed twice" in str(ei.value)
