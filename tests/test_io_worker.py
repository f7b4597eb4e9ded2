"""Uploads loaded in a worker process (dashboard.loader): the same collection and errors as a load in
the server's interpreter, a memory limit of its own, a queue position, and no worker left behind when
the waiting session goes away."""
from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import evalcore
from dashboard.loader import load_in_worker
from evalcore.io import APP_LIMITS, InputError

CLEF = Path("/work/shared/data/clef2015")
QRELS = ("q.txt", b"q1 0 d1 1\nq1 0 d2 2\nq2 0 d1 1\n")
RUNS = [("a.txt", b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\nq2 Q0 d3 1 1.0 x\n"), ("b.txt", b"q1 Q0 d2 1 1.0 x\n")]


def _children() -> set[int]:
    """Process ids whose parent is this process (Linux)."""
    me, out = str(os.getpid()), set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if (p / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    out.add(int(p.name))
            except (OSError, IndexError):
                pass
    return out


def _big_qrels(lines: int = 1_500_000) -> tuple[str, bytes]:
    return ("big.txt", b"".join(b"%d 0 doc-%08d 1\n" % (i % 1000, i) for i in range(lines)))


def test_the_worker_returns_the_collection_a_load_in_process_gives():
    ref = evalcore.load_collection(QRELS, RUNS, limits=APP_LIMITS)
    seen = []
    c = load_in_worker(QRELS, RUNS, limits=APP_LIMITS, progress=seen.append)
    assert np.array_equal(c.levels, ref.levels) and np.array_equal(c.unjudged, ref.unjudged)
    assert np.array_equal(c.lengths, ref.lengths) and np.array_equal(c.level_counts, ref.level_counts)
    assert (c.run_ids, c.topic_ids, c.report.missing_run_topics) == (ref.run_ids, ref.topic_ids,
                                                                      ref.report.missing_run_topics)
    assert seen and seen[-1] == 1.0


@pytest.mark.skipif(not CLEF.exists(), reason="needs the clef2015 collection")
def test_clef2015_through_the_worker_scores_as_in_process():
    runs = sorted((CLEF / "runs").iterdir())[:5]
    ref = evalcore.load_collection(CLEF / "qrels.txt", runs)
    c = load_in_worker(str(CLEF / "qrels.txt"), [str(p) for p in runs])
    assert np.array_equal(c.levels, ref.levels) and c.run_ids == ref.run_ids


def test_bad_input_is_the_same_input_error():
    bad = [("r.txt", b"q1 Q0 d1 1 nan x\n")]
    with pytest.raises(InputError) as here:
        evalcore.load_collection(QRELS, bad)
    with pytest.raises(InputError) as there:
        load_in_worker(QRELS, bad)
    assert str(there.value) == str(here.value)


def test_a_load_over_the_workers_memory_limit_is_a_readable_error():
    with pytest.raises(InputError, match="not enough memory|needs more than"):
        load_in_worker(_big_qrels(), RUNS, memory=500 << 20)
    assert not _children()


def test_a_session_that_goes_away_kills_its_worker():
    class Gone(BaseException):   # what Streamlit raises in a closed session's script thread
        pass

    def tick(seconds: float) -> None:
        if seconds > 0.3:
            raise Gone
    t = time.perf_counter()
    with pytest.raises(Gone):
        load_in_worker(_big_qrels(3_000_000), RUNS, tick=tick)
    assert time.perf_counter() - t < 30 and not _children()


def test_a_second_load_waits_for_the_first_and_sees_its_place():
    big = _big_qrels()
    first = threading.Thread(target=lambda: load_in_worker(big, RUNS))
    first.start()
    time.sleep(0.5)                       # the first load has the one worker slot by now
    places: list[int] = []
    c = load_in_worker(QRELS, RUNS, waiting=places.append)
    first.join()
    assert c.run_ids == ("a", "b") and places and set(places) == {1}


def test_uploads_reach_the_worker_as_files_not_through_the_pipe(tmp_path, monkeypatch):
    """The payload sent to the worker names the uploads by path (a few hundred bytes, not a pickled copy
    of the upload); the worker reads the same bytes back; the files are gone when the load ends."""
    import pickle

    from dashboard import loader

    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path))
    big = _big_qrels(50_000)
    runs = [RUNS[0], ("runs/b.txt", RUNS[1][1]), "/some/path.txt"]
    q, r, where = loader._payload(big, runs)
    try:
        assert len(pickle.dumps((q, r))) < 1000 < len(big[1])
        assert loader._unstage(q) == big and loader._unstage(r) == [RUNS[0], ("runs/b.txt", RUNS[1][1]),
                                                                  "/some/path.txt"]
    finally:
        import shutil
        shutil.rmtree(where)
    sent = []
    real = loader._start
    monkeypatch.setattr(loader, "_start", lambda payload: sent.append(len(pickle.dumps(payload))) or real(payload))
    ref = evalcore.load_collection(big, RUNS, limits=APP_LIMITS)
    c = load_in_worker(big, RUNS, limits=APP_LIMITS)
    assert np.array_equal(c.levels, ref.levels) and c.report.n_qrels_lines == ref.report.n_qrels_lines
    assert sent and sent[0] < 2000 and list(tmp_path.iterdir()) == []
    with pytest.raises(InputError) as e:                 # messages name the file as uploaded, not the path
        load_in_worker(("my qrels.txt", b"q1 0 d1 x\n"), RUNS)
    assert str(e.value).startswith("my qrels.txt, line 1:") and list(tmp_path.iterdir()) == []


def test_a_full_disk_sends_the_bytes_through_the_pipe(tmp_path, monkeypatch):
    from dashboard import loader

    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path / "missing"))   # mkdtemp fails: OSError
    assert loader._payload(QRELS, RUNS) == (QRELS, RUNS, None)
    c = load_in_worker(QRELS, RUNS)
    assert c.run_ids == ("a", "b")


def test_a_cancelled_load_leaves_no_files(tmp_path, monkeypatch):
    monkeypatch.setenv("EVALCORE_LOAD_DIR", str(tmp_path))

    class Gone(BaseException):
        pass

    def tick(seconds: float) -> None:
        if seconds > 0.3:
            assert len(list(tmp_path.iterdir())) == 1     # the load's directory, while it runs
            raise Gone
    with pytest.raises(Gone):
        load_in_worker(_big_qrels(3_000_000), RUNS, tick=tick)
    assert list(tmp_path.iterdir()) == [] and not _children()
