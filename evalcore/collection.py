"""The collection tensor: every run's ranked lists as relevance levels.

Parse once (``evalcore.io``), then evaluate many times: gains, beta,
penalties, cutoffs and the binary threshold are arguments of the metric
kernels, never baked in here.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

__all__ = ["Collection", "LoadReport", "Hits"]


@dataclass
class LoadReport:
    """What happened while loading, in words a user can read.

    ``warnings`` are complete sentences (file and line where it applies);
    the dictionaries map run name -> topic ids.
    """

    qrels_source: str = ""
    n_qrels_lines: int = 0
    n_run_lines: int = 0
    level_judgments: dict[int, int] = field(default_factory=dict)
    topics_without_relevant: list[str] = field(default_factory=list)
    ignored_run_topics: dict[str, list[str]] = field(default_factory=dict)
    missing_run_topics: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    tensor_bytes: int = 0  # levels tensor + unjudged mask, known (and checked) before they are allocated

    def summary(self, collection: Collection | None = None) -> str:
        lines = []
        if collection is not None:
            c = collection
            lines.append(
                f"{c.n_topics} topics, {c.n_runs} runs, depth {c.depth}, "
                f"relevance levels 0..{c.max_level}"
            )
            per_level = ", ".join(
                f"{c.level_label(L)}: {int(c.level_counts[:, L].sum())}"
                for L in range(c.max_level, 0, -1)
            )
            lines.append(f"relevant documents per level: {per_level}")
        if self.tensor_bytes:
            n = self.tensor_bytes
            size = f"{n / 2**20:,.1f} MiB" if n >= 2**20 else f"{n / 2**10:,.1f} KiB" if n >= 2**10 else f"{n} bytes"
            lines.append(f"memory: {size} for the levels tensor and its unjudged mask "
                         f"(2 bytes per run x topic x rank)")
        if self.level_judgments:
            lj = ", ".join(f"L{k}: {v}" for k, v in sorted(self.level_judgments.items()))
            lines.append(f"judgments per level in the qrels: {lj}")
        if self.topics_without_relevant:
            lines.append(
                f"{len(self.topics_without_relevant)} qrels topic(s) without a relevant document: "
                f"{', '.join(self.topics_without_relevant[:10])}"
                + (" ..." if len(self.topics_without_relevant) > 10 else "")
                + " - left out of the means under NTCIREVAL's convention (topics=ntcireval), scored 0 under "
                "trec_eval's (topics=trec_eval; the default for trec_eval and ir_measures names)"
            )
        lines.extend(group_by_subject([
            f"run {run}: {len(topics)} topic(s) not in the qrels ignored: "
            f"{', '.join(topics[:10])}" + (" ..." if len(topics) > 10 else "")
            for run, topics in self.ignored_run_topics.items()]))
        lines.extend(group_by_subject([
            f"run {run}: no ranked list for {len(topics)} evaluated topic(s) "
            f"(they score 0): {', '.join(topics[:10])}" + (" ..." if len(topics) > 10 else "")
            for run, topics in self.missing_run_topics.items()]))
        lines.extend(f"warning: {w}" for w in self.grouped_warnings())
        return "\n".join(lines)

    def grouped_warnings(self) -> list[str]:
        """:attr:`warnings`, one line per problem: the same problem in several runs or files is said once,
        with their count and names (:func:`group_by_subject`)."""
        return group_by_subject(list(self.warnings))


def group_by_subject(lines: list[str], most: int = 5) -> list[str]:
    """Lines ``"<subject>: <problem>"``, one per distinct problem, in order of first appearance: a problem
    shared by several subjects becomes ``"<n> runs (a, b, c, ...): <problem>"`` (``files`` where the subjects
    are not all runs), naming the first ``most``; a line said twice word for word is said once with
    ``(n times)``. Nothing is dropped: every subject is counted.

    >>> group_by_subject(["run a: 1 topic(s) not in the qrels ignored: q9", "run b: 1 topic(s) not in the "
    ...                   "qrels ignored: q9", "run c: no ranked list for 2 evaluated topic(s)"])
    ['2 runs (a, b): 1 topic(s) not in the qrels ignored: q9', 'run c: no ranked list for 2 evaluated topic(s)']
    """
    groups: dict[str, list[str | None]] = {}
    for line in lines:
        subject, sep, problem = line.partition(": ")
        if sep:
            groups.setdefault(problem, []).append(subject)
        else:
            groups.setdefault(line, []).append(None)
    out = []
    for problem, subjects in groups.items():
        named = [x for x in subjects if x is not None]
        if not named:
            out.append(problem + (f" ({len(subjects)} times)" if len(subjects) > 1 else ""))
            continue
        distinct = list(dict.fromkeys(named))
        if len(distinct) == 1:
            times = f" ({len(named)} times)" if len(named) > 1 else ""
            out.append(f"{distinct[0]}: {problem}{times}")
            continue
        runs = all(x.startswith("run ") for x in distinct)
        names = [x[4:] if runs else x for x in distinct]
        shown = ", ".join(names[:most]) + (", ..." if len(names) > most else "")
        out.append(f"{len(names)} {'runs' if runs else 'files'} ({shown}): {problem}")
    return out


@dataclass(frozen=True)
class Hits:
    """The relevant documents retrieved, as flat arrays in (run, topic, rank) order.

    A derived, gain-independent view of ``Collection.levels``: most ranks
    hold non-relevant documents, so every metric is computed over these
    few entries instead of the dense tensor.

    ``cnt[i, L-1]`` is the number of retrieved documents of level L at or
    above hit i in its own list (so cg = cnt @ gains and count = cnt.sum(1)).
    """

    seg: np.ndarray      # int64 flat list index run * n_topics + topic
    topic: np.ndarray    # int64
    rank: np.ndarray     # int64, 1-based
    level: np.ndarray    # int64, >= 1
    cnt: np.ndarray      # int64 (n_hits, K)
    count: np.ndarray    # int64: count(rank), relevant docs at or above
    first: np.ndarray    # bool: first hit of its list (rank == r_1)
    n_seg: int


@dataclass(frozen=True, eq=False)
class Collection:
    """Runs x topics x ranks of relevance levels, plus per-topic level counts.

    Parameters
    ----------
    levels : int8 array (n_runs, n_topics, depth)
        Relevance level of the document at each rank; 0 for non-relevant,
        unjudged, or beyond the end of the list.
    lengths : int array (n_runs, n_topics)
        Number of documents retrieved (0 for a topic missing from a run).
    level_counts : int array (n_topics, K + 1)
        Judged documents per level for each topic; column 0 counts judged
        non-relevant documents. Every topic has at least one of level >= 1.
    run_ids, topic_ids : sequences of str
    unjudged : bool array like ``levels`` or None
        True where the retrieved document has no qrels entry (for
        condensed lists, Sakai SIGIR 2007).
    level_names : names of levels 1..K, lowest first (e.g. ("B", "A", "S")).
    topics_without_relevant : sequence of str or None
        Qrels topics with no relevant document (only level-0 judgments). They
        hold no column here (no metric is defined on them in NTCIREVAL's
        convention), but trec_eval evaluates them and scores them 0, so the
        ``topics="trec_eval"`` policy of :func:`evalcore.evaluate` averages over
        them too. Default (None): the loader's
        ``report.topics_without_relevant``; a collection built by hand has none.
    no_relevant : Collection or None
        The same runs' lists for ``topics_without_relevant`` (in that order):
        levels all 0, their judged documents in ``level_counts[:, 0]`` and
        the unjudged ones flagged in ``unjudged``. The loader fills it; it is
        read only by the measures that are not 0 on such a topic (NumRet,
        Judged@k) under trec_eval's topic policy. None: not known (a
        collection built by hand), those measures score 0 there.
    order : how each ranked list was ordered: ``"score"`` (trec_eval's
        order: score descending, exact ties by document id descending),
        ``"rank"`` (the rank column), ``"file"`` (the order of the run file,
        as NTCIREVAL reads a ranked list) or ``"given"`` (a collection built
        by hand or simulated: the lists as they were given). Set by the
        loader; every output of :func:`evalcore.evaluate` states it.
    depth_limit : the ``depth`` the lists were cut at (:meth:`truncated`,
        ``load_collection(depth=...)``), or None (whole lists).
    condensed_lists : True once :meth:`condensed` removed the unjudged documents (stated with every number).
    ir_measures_order : int64 array (n_moves, 4) or None
        Where ir_measures' providers that sort the run themselves (msmarco's
        RR@k, the judged provider's Judged@k) put a document of a score tie
        elsewhere than trec_eval's order does: rows ``(run, topic, rank0,
        rank0 in ir_measures' order)`` (0-based ranks), one per document that
        moves. ir_measures sorts by score descending in double precision, ties
        by document id ascending; trec_eval in single precision, ties by
        document id descending. The loader fills it for ``order="score"``
        (empty when no tie moves a document); None: not known (a collection
        built by hand, or read in another order), the lists as they are.
        :meth:`in_order` applies it.
    input_order : int64 array (n_moves, 4) or None
        The same for the providers that sort a run with Python's stable sort on the score alone (cwl_eval's
        C/W/L measures, the accuracy provider): score descending in double precision, ties in the run's own
        order (the file's lines, a dict's or DataFrame's rows). Rows ``(run, topic, rank0, rank0 in that
        order)``; filled by the loader for ``order="score"``; None: not known, the lists as they are.
        ``in_order("input")`` applies it.
    """

    levels: np.ndarray
    lengths: np.ndarray
    level_counts: np.ndarray
    run_ids: tuple[str, ...]
    topic_ids: tuple[str, ...]
    unjudged: np.ndarray | None = None
    level_names: tuple[str, ...] | None = None
    name: str = ""
    report: LoadReport = field(default_factory=LoadReport)
    # None takes the report's; __post_init__ always stores a tuple, which is what every reader gets
    topics_without_relevant: tuple[str, ...] = None  # type: ignore[assignment]
    no_relevant: Collection | None = None
    order: str = "given"
    depth_limit: int | None = None
    condensed_lists: bool = False
    ir_measures_order: np.ndarray | None = None
    input_order: np.ndarray | None = None

    def __post_init__(self):
        if self.topics_without_relevant is None:
            object.__setattr__(self, "topics_without_relevant",
                               tuple(str(t) for t in self.report.topics_without_relevant))
        else:
            object.__setattr__(self, "topics_without_relevant", tuple(str(t) for t in self.topics_without_relevant))
        lv = np.ascontiguousarray(self.levels, dtype=np.int8)
        if lv.ndim != 3:
            raise ValueError(f"levels must have shape (n_runs, n_topics, depth); got {lv.shape}")
        object.__setattr__(self, "levels", lv)
        object.__setattr__(self, "lengths", np.asarray(self.lengths, dtype=np.int32))
        lc = np.asarray(self.level_counts, dtype=np.int64)
        if lc.ndim != 2 or lc.shape[0] != lv.shape[1]:
            raise ValueError(
                f"level_counts must have shape (n_topics, K + 1) = ({lv.shape[1]}, K + 1); got {lc.shape}"
            )
        if lc.shape[1] < 2:
            lc = np.concatenate([lc, np.zeros((lc.shape[0], 2 - lc.shape[1]), np.int64)], axis=1)
        object.__setattr__(self, "level_counts", lc)
        object.__setattr__(self, "run_ids", tuple(str(r) for r in self.run_ids))
        object.__setattr__(self, "topic_ids", tuple(str(t) for t in self.topic_ids))
        if len(self.run_ids) != lv.shape[0] or len(self.topic_ids) != lv.shape[1]:
            raise ValueError(
                f"{len(self.run_ids)} run ids and {len(self.topic_ids)} topic ids "
                f"do not match levels of shape {lv.shape}"
            )
        if self.lengths.shape != lv.shape[:2]:
            raise ValueError(f"lengths must have shape {lv.shape[:2]}; got {self.lengths.shape}")
        if lv.size and int(lv.max()) > self.max_level:
            raise ValueError(
                f"levels holds level {int(lv.max())} but level_counts only covers 0..{self.max_level}"
            )
        if lv.size and int(lv.min()) < 0:
            raise ValueError("levels must be >= 0")
        self._check_side_arrays(lv)
        if self.level_names is not None and len(self.level_names) != self.max_level:
            raise ValueError(
                f"level_names must name levels 1..{self.max_level}; got {list(self.level_names)}"
            )

    def _check_side_arrays(self, lv: np.ndarray) -> None:
        """The optional arrays beside ``levels`` (``unjudged``, ``no_relevant``, ``ir_measures_order``,
        ``input_order``) agree
        with it; checked once, in :meth:`__post_init__`."""
        both = set(self.topics_without_relevant) & set(self.topic_ids)
        if both:
            raise ValueError(f"topics_without_relevant must not repeat evaluated topics; got {sorted(both)[:5]}")
        if self.unjudged is not None:
            uj = np.asarray(self.unjudged, dtype=bool)
            if uj.shape != lv.shape:
                raise ValueError(f"unjudged must have shape {lv.shape}; got {uj.shape}")
            object.__setattr__(self, "unjudged", uj)
        side = self.no_relevant
        if side is not None and (side.run_ids != self.run_ids or side.topic_ids != self.topics_without_relevant):
            raise ValueError("no_relevant must hold the same runs and the topics_without_relevant, in order; got "
                             f"runs {list(side.run_ids)[:3]}, topics {list(side.topic_ids)[:3]}")
        for attr in ("ir_measures_order", "input_order"):
            moves = getattr(self, attr)
            if moves is None:
                continue
            mv = np.asarray(moves, dtype=np.int64).reshape(-1, 4)
            if mv.size and (mv.min() < 0 or mv[:, 0].max() >= lv.shape[0] or mv[:, 1].max() >= lv.shape[1]
                            or mv[:, 2:].max() >= lv.shape[2]):
                raise ValueError(f"{attr} holds a (run, topic, rank) outside the levels tensor")
            object.__setattr__(self, attr, mv)

    # -- shape -------------------------------------------------------------
    @property
    def n_runs(self) -> int:
        return self.levels.shape[0]

    @property
    def n_topics(self) -> int:
        return self.levels.shape[1]

    @property
    def depth(self) -> int:
        return self.levels.shape[2]

    @property
    def max_level(self) -> int:
        """K, the highest relevance level the qrels define."""
        return self.level_counts.shape[1] - 1

    @cached_property
    def R(self) -> np.ndarray:
        """Relevant documents per topic (levels >= 1), shape (n_topics,)."""
        return self.level_counts[:, 1:].sum(axis=1)

    def level_label(self, level: int) -> str:
        if level == 0:
            return "non-relevant"
        if self.level_names:
            return self.level_names[level - 1]
        return f"L{level}"

    @cached_property
    def fingerprint(self) -> str:
        """A content hash: the data's identity for caches."""
        import hashlib  # (here: a command-line evaluation never hashes)

        h = hashlib.sha1()
        for a in (self.levels, self.lengths, self.level_counts):
            h.update(str(a.shape).encode())
            h.update(a.tobytes())
        if self.unjudged is not None:
            h.update(np.packbits(self.unjudged).tobytes())
        h.update("\x1f".join(self.run_ids).encode())
        h.update("\x1e".join(self.topic_ids).encode())
        h.update(repr(self.level_names).encode())
        if self.no_relevant is not None:
            h.update(self.no_relevant.fingerprint.encode())
        if self.ir_measures_order is not None and self.ir_measures_order.size:
            h.update(self.ir_measures_order.tobytes())
        if self.input_order is not None and self.input_order.size:
            h.update(b"input")
            h.update(self.input_order.tobytes())
        return h.hexdigest()

    # -- derived views -----------------------------------------------------
    @cached_property
    def hits(self) -> Hits:
        """The sparse, gain-independent view every metric kernel reads."""
        n_runs, n_topics, depth = self.levels.shape
        K = self.max_level
        idx = np.flatnonzero(self.levels)              # one int64 per hit (not two, as np.nonzero)
        seg, pos = np.divmod(idx, depth)
        level = self.levels.reshape(-1)[idx].astype(np.int64)
        del idx
        n = seg.size
        first = np.ones(n, dtype=bool)
        if n:
            first[1:] = seg[1:] != seg[:-1]
        starts = np.flatnonzero(first)
        run_len = np.diff(np.append(starts, n))
        # index of the first hit of each hit's list
        start_of = np.repeat(starts, run_len)
        # cnt[i, L-1]: level-L hits at or above hit i in its list - one level at a time, so the
        # temporaries are n-long vectors, not (n, K) matrices (this view is built once per collection)
        cnt = np.empty((n, K), dtype=np.int64)
        for L in range(1, K + 1):
            cum = np.cumsum(level == L, dtype=np.int64)
            prev = np.zeros(starts.size, dtype=np.int64)
            prev[starts > 0] = cum[starts[starts > 0] - 1]
            cum -= np.repeat(prev, run_len)
            cnt[:, L - 1] = cum
            del cum
        count = np.arange(n, dtype=np.int64) - start_of + 1
        del start_of
        return Hits(
            seg=seg,
            topic=seg % max(n_topics, 1),
            rank=pos + 1,
            level=level,
            cnt=cnt,
            count=count,
            first=first,
            n_seg=n_runs * n_topics,
        )

    def in_order(self, ties: str) -> Collection:
        """The same lists with score ties ordered as ``ties`` says: ``"trec_eval"`` (as loaded: this
        collection), ``"ir_measures"`` (:attr:`ir_measures_order` applied: document id ascending) or
        ``"input"`` (:attr:`input_order` applied: the run's own order, as cwl_eval sorts); the lists as they
        are when that attribute is None or empty. The result holds that attribute empty (it is in that
        order) and the other None (not known from there) once a document moved."""
        if ties == "trec_eval":
            return self
        if ties not in ("ir_measures", "input"):
            raise ValueError(f"ties must be 'trec_eval', 'ir_measures' or 'input'; got {ties!r}")
        side = None if self.no_relevant is None else self.no_relevant.in_order(ties)
        mv = self.ir_measures_order if ties == "ir_measures" else self.input_order
        if mv is None or not mv.size:
            return replace(self, no_relevant=side) if side is not self.no_relevant else self
        D = self.depth
        base = (mv[:, 0] * self.n_topics + mv[:, 1]) * D
        src, dest = base + mv[:, 2], base + mv[:, 3]
        levels = self.levels.copy()
        levels.reshape(-1)[dest] = self.levels.reshape(-1)[src]
        unjudged = None
        if self.unjudged is not None:
            unjudged = self.unjudged.copy()
            unjudged.reshape(-1)[dest] = self.unjudged.reshape(-1)[src]
        done = np.zeros((0, 4), np.int64)
        return replace(self, levels=levels, unjudged=unjudged, no_relevant=side,
                       ir_measures_order=done if ties == "ir_measures" else None,
                       input_order=done if ties == "input" else None)

    def condensed(self) -> Collection:
        """The same runs with unjudged documents removed first (condensed
        lists, Sakai SIGIR 2007). Ranks close up; lengths shrink."""
        if self.unjudged is None or not self.unjudged.any():
            side = self.no_relevant
            if side is not None and side.condensed() is not side:
                return replace(self, no_relevant=side.condensed(), condensed_lists=True)
            return self if self.condensed_lists else replace(self, condensed_lists=True)
        keep = ~self.unjudged
        in_list = np.arange(self.depth)[None, None, :] < self.lengths[:, :, None]
        keep &= in_list
        # stable compaction along the rank axis
        order = np.argsort(~keep, axis=2, kind="stable")
        lv = np.take_along_axis(self.levels, order, axis=2)
        new_len = keep.sum(axis=2).astype(np.int32)
        mask = np.arange(self.depth)[None, None, :] < new_len[:, :, None]
        lv = np.where(mask, lv, 0).astype(np.int8)
        return replace(
            self,
            levels=lv,
            lengths=new_len,
            unjudged=np.zeros_like(self.unjudged),
            name=(self.name + " (condensed)").strip(),
            condensed_lists=True,
            no_relevant=None if self.no_relevant is None else self.no_relevant.condensed(),
            # the ranks move: ir_measures' order is lost (apply in_order first to condense lists in that order)
            ir_measures_order=None,
            input_order=None,
        )

    def truncated(self, depth: int) -> Collection:
        """Only the top ``depth`` documents of every list (after condensing, if any)."""
        if depth >= self.depth:   # nothing cut: the lists are whole (depth_limit stays as it was)
            return self
        return replace(
            self,
            levels=self.levels[:, :, :depth],
            lengths=np.minimum(self.lengths, depth),
            unjudged=None if self.unjudged is None else self.unjudged[:, :, :depth],
            no_relevant=None if self.no_relevant is None else self.no_relevant.truncated(depth),
            depth_limit=depth if self.depth_limit is None else min(depth, self.depth_limit),
            ir_measures_order=_moves_within(self.ir_measures_order, depth),
            input_order=_moves_within(self.input_order, depth),
        )

    def subset(
        self, runs: Sequence[int] | None = None, topics: Sequence[int] | None = None
    ) -> Collection:
        """A collection with only the given run / topic indices (in that order)."""
        r = np.arange(self.n_runs) if runs is None else np.asarray(runs, dtype=np.int64)
        t = np.arange(self.n_topics) if topics is None else np.asarray(topics, dtype=np.int64)
        return replace(
            self,
            levels=self.levels[np.ix_(r, t)],
            lengths=self.lengths[np.ix_(r, t)],
            level_counts=self.level_counts[t],
            run_ids=tuple(self.run_ids[i] for i in r),
            topic_ids=tuple(self.topic_ids[i] for i in t),
            unjudged=None if self.unjudged is None else self.unjudged[np.ix_(r, t)],
            # a chosen topic subset is exactly those topics (no zero-scored extras under trec_eval's policy)
            topics_without_relevant=self.topics_without_relevant if topics is None else (),
            no_relevant=(None if self.no_relevant is None or topics is not None
                         else self.no_relevant.subset(runs=runs)),
            ir_measures_order=_moves_of(self.ir_measures_order, r, t, self.n_runs, self.n_topics),
            input_order=_moves_of(self.input_order, r, t, self.n_runs, self.n_topics),
        )

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return (
            f"Collection({self.name!r}: {self.n_runs} runs x {self.n_topics} topics x "
            f"depth {self.depth}, levels 0..{self.max_level})"
        )

    @classmethod
    def from_lists(
        cls,
        lists: Mapping[str, Mapping[str, Sequence[int]]],
        level_counts: Mapping[str, Sequence[int]],
        *,
        level_names: Sequence[str] | None = None,
        name: str = "",
    ) -> Collection:
        """Build a small collection from ranked lists of levels.

        ``lists[run][topic]`` is the sequence of relevance levels of the
        ranked list; ``level_counts[topic][L]`` the number of judged
        documents of level L (index 0: judged non-relevant). Topics order
        follows ``level_counts``; a topic missing from a run has an empty list.

        >>> c = Collection.from_lists({"X": {"t": [1]}}, {"t": [0, 1, 1, 1]})
        >>> c.levels.shape, int(c.R[0])
        ((1, 1, 1), 3)
        """
        topics = list(level_counts)
        runs = list(lists)
        K = max(len(v) for v in level_counts.values()) - 1
        depth = max([len(ranked) for r in lists.values() for ranked in r.values()] + [1])
        levels = np.zeros((len(runs), len(topics), depth), dtype=np.int8)
        lengths = np.zeros((len(runs), len(topics)), dtype=np.int32)
        for i, r in enumerate(runs):
            for t_name, seq in lists[r].items():
                j = topics.index(t_name)
                levels[i, j, : len(seq)] = seq
                lengths[i, j] = len(seq)
        lc = np.zeros((len(topics), K + 1), dtype=np.int64)
        for j, t_name in enumerate(topics):
            v = list(level_counts[t_name])
            lc[j, : len(v)] = v
        return cls(
            levels=levels,
            lengths=lengths,
            level_counts=lc,
            run_ids=tuple(runs),
            topic_ids=tuple(topics),
            level_names=None if level_names is None else tuple(level_names),
            name=name,
        )


def _moves_within(moves: np.ndarray | None, depth: int) -> np.ndarray | None:
    """:attr:`Collection.ir_measures_order` (or ``input_order``) of the top ``depth`` ranks: a list whose ties
    cross rank ``depth`` keeps trec_eval's order (which documents ir_measures would read in the top ``depth``
    is not known from the kept ranks)."""
    if moves is None or not moves.size:
        return moves
    cross = (moves[:, 2] >= depth) | (moves[:, 3] >= depth)
    bad = {(int(a), int(b)) for a, b in moves[cross, :2]}
    keep = np.array([(int(a), int(b)) not in bad for a, b in moves[:, :2]], dtype=bool) if bad else ~cross
    return moves[keep]


def _moves_of(moves: np.ndarray | None, runs: np.ndarray, topics: np.ndarray, n_runs: int, n_topics: int
              ) -> np.ndarray | None:
    """:attr:`Collection.ir_measures_order` (or ``input_order``) of the runs and topics chosen
    (:meth:`Collection.subset`), renumbered; a run or topic chosen twice keeps its moves under each of its numbers."""
    if moves is None or not moves.size:
        return moves
    out = []
    for new_r, old_r in enumerate(runs.tolist()):      # runs are few; topics are mapped at once
        of_run = moves[moves[:, 0] == old_r]
        if not of_run.size:
            continue
        for rep in range(int(np.bincount(topics, minlength=n_topics).max(initial=0))):
            inv = np.full(n_topics, -1, np.int64)   # old topic -> its (rep+1)-th new number
            seen = np.zeros(n_topics, np.int64)
            for new_t, old_t in enumerate(topics.tolist()) if rep else ():
                if seen[old_t] == rep:
                    inv[old_t] = new_t
                seen[old_t] += 1
            if not rep:
                inv[topics[::-1]] = np.arange(len(topics))[::-1]   # the first choice of each topic
            nt = inv[of_run[:, 1]]
            keep = nt >= 0
            if keep.any():
                out.append(np.column_stack([np.full(int(keep.sum()), new_r), nt[keep], of_run[keep, 2:]]))
    return np.concatenate(out).astype(np.int64) if out else np.zeros((0, 4), np.int64)
