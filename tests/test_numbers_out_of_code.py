"""Numbers belong in docs, reasons in comments: no comment or docstring of the package code quotes a measurement.

A timing in a comment is stale the next week; the code says *why* it is shaped so and points to the section
of docs/benchmarks.md (or docs/reliability.md) whose table holds the number, with the command that made it
(CONTRIBUTING.md, "Benchmarks").

The package code is ``evalcore/``, ``dashboard/``, ``views/`` and ``app.py``. Its comments are read with
:mod:`tokenize` (consecutive comment lines joined into one block) and its docstrings (module, class and
function) with :mod:`ast`; inline code (````...````) and doctest lines (``>>>`` and the output after them) are
left out, since they are code, not prose.

**The rule.** A *measurement* is a number a run of the code produced; a *limit* or *constant* is a number the
code or its documentation sets. The text is cut into sentences, and a sentence quotes a measurement when

1. it holds a **range of durations** - two numbers joined by ``-`` or ``to`` before a unit of time
   (``4.3-5.1 s``, ``2.6 to 3.8 ms``): a limit or a default is one number, a spread of times is what
   repeated runs observed; or
2. it holds a **ratio with decimals** written against its number (``1.78x``): no constant is written so; or
3. it holds a **quantity** - a number with a unit of time (ns, µs, us, ms, s, seconds, minutes), of memory
   (kB, KB, MB, MiB, GB, GiB), a ratio (``1.78x``, ``5-8x``, or ``2.5 x the text``) or a percentage -
   **with an observation word** at most :data:`NEAR` characters from it: measured, took, ran, spent,
   settled / settles, p50 / p90 / p95 / p99, median, faster, slower, cheaper, speed-up, peak / peaks,
   cost / costs, CPU (not "the CPU's"), wall time, instructions, benchmarked, tracemalloc, RSS.

So "the 16 GiB limit", "default 600 s", "every ~5 % of the work", "a 100-run pair table is several MB" and
"1 MB blocks: ... larger blocks cost peak memory and were no faster (docs/benchmarks.md section 10.2)" are not
counted (one number, no observation word next to it), while "took p95 from 4.3-5.1 s to 3.5-4.1 s",
"0.1 s of CPU per move" and "5-8x slower" are. Bytes per item (``2 bytes per cell``) are arithmetic from a
dtype and not counted; words for a share ("a tenth of a move's CPU") are not numbers and not counted, though
the same advice applies to them. A number the rule misses is still a measurement if it is one: the rule
finds the usual forms, reviews the rest.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Files whose measurement quotes are not rewritten yet, each with the reason; the test fails on everything
#: else. An entry goes as soon as its file is rewritten (the test then says it is stale).
PENDING: dict[str, str] = {}

_NUM = r"(?:~|about |some )?\d[\d,]*(?:\.\d+)?"
_TIME = r"(?:ns|µs|us|ms|s|sec|seconds?|minutes?)"
_MEMORY = r"(?:[kKMG]i?B)"
#: a ratio written apart from its number, before what it compares: "2.5 x the text", "3 x less"
_RATIO_WORDS = r"\s[x×]\s(?:the|its|their|that|less|more|larger|smaller|cheaper|faster|slower)\b"
#: a range of durations: "4.3-5.1 s", "2.6 to 3.8 s"
TIME_RANGE = re.compile(rf"(?<![\w.]){_NUM}\s?(?:-|–|to)\s?{_NUM}\s?{_TIME}(?![\w])")
#: a quantity: a number (or a range) with a unit of time or memory, a ratio written against it, a percentage
QUANTITY = re.compile(rf"(?<![\w.]){_NUM}(?:\s?(?:-|–|to)\s?{_NUM})?"
                      rf"(?:\s?(?:{_TIME}|{_MEMORY}|%)(?![\w])|x(?![\w])|×|{_RATIO_WORDS})")
#: the words that say a number was observed
OBSERVED = re.compile(r"\b(?:measured|measuring|took|ran|spent|settled|settles|settle|p50|p90|p95|p99|median|"
                      r"faster|slower|cheaper|speed-?ups?|peaks?|benchmarked|instructions|costs?|"
                      r"CPU(?!'s)|wall time|tracemalloc|RSS)\b", re.I)
#: a ratio with decimals written against its number ("1.78x"): no constant of the code is written so
DECIMAL_RATIO = re.compile(r"(?<![\w.])\d+\.\d+[x×](?![\w])")
#: how close (characters) an observation word must stand to a quantity to make it a measurement
NEAR = 40
_INLINE_CODE = re.compile(r"``[^`]*``|`[^`]*`")
_SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"'`*-])|\n\s*\n")


def package_files(root: Path = ROOT) -> list[Path]:
    return sorted([*root.glob("evalcore/**/*.py"), *root.glob("dashboard/*.py"), *root.glob("views/*.py"),
                   root / "app.py"])


def prose(path: Path) -> list[tuple[int, str]]:
    """``(first line, text)`` of every comment block and docstring of ``path``."""
    src = path.read_text(encoding="utf-8")
    out: list[tuple[int, str]] = []
    block: list[str] = []
    start = last = 0
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type != tokenize.COMMENT:
            continue
        text = tok.string.lstrip("#").lstrip(":").strip()
        if block and tok.start[0] == last + 1:
            block.append(text)
        else:
            if block:
                out.append((start, " ".join(block)))
            block, start = [text], tok.start[0]
        last = tok.start[0]
    if block:
        out.append((start, " ".join(block)))
    for node in ast.walk(ast.parse(src, filename=str(path))):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                out.append((first.lineno, _without_doctests(first.value.value)))
    return out


def _without_doctests(doc: str) -> str:
    """The docstring without its doctest examples (a ``>>>`` line and the output lines after it)."""
    keep, in_example = [], False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            in_example = True
            continue
        if in_example and stripped:
            continue                        # the example's expected output
        in_example = False
        keep.append(line)
    return "\n".join(keep)


def quotes(text: str) -> list[str]:
    """The sentences of ``text`` that quote a measurement (the module docstring gives the rule)."""
    found = []
    for sentence in _SENTENCE.split(_INLINE_CODE.sub(" ", text)):
        sentence = " ".join(sentence.split())
        if TIME_RANGE.search(sentence) or DECIMAL_RATIO.search(sentence) or _observed_quantity(sentence):
            found.append(sentence)
    return found


def _observed_quantity(sentence: str) -> bool:
    """Whether a quantity stands within :data:`NEAR` characters of an observation word."""
    words = [m.span() for m in OBSERVED.finditer(sentence)]
    return any(w0 - NEAR <= q1 and q0 <= w1 + NEAR
               for q0, q1 in (m.span() for m in QUANTITY.finditer(sentence)) for w0, w1 in words)


def find_quotes(root: Path = ROOT) -> list[str]:
    """``"path:line: sentence"`` for every measurement quoted in the package's comments and docstrings."""
    out = []
    for path in package_files(root):
        rel = path.relative_to(root).as_posix()
        for line, text in prose(path):
            out += [f"{rel}:{line}: {q}" for q in quotes(text)]
    return out


@pytest.mark.parametrize("text", [
    "so a longer interval took p95 at 20 sessions from 4.3-5.1 s to 3.5-4.1 s (docs/reliability.md).",
    "at 20 sessions the Overview settled in 8.3-8.5 s (p95) with them",
    "OpenBLAS's two threads made them 5-8x slower in CPU time",
    "the bootstrap gained from 30 runs on (435 pairs: 1.78x faster)",
    "0.1 s of CPU per Overview move taken from the other sessions",
    "the whole call ran in 12 ms",
    "Parsing alone peaks at ~2-4 x the file's text (+70 MiB measured on a 92 MB file).",
])
def test_the_rule_finds_measurements(text):
    assert quotes(text), text


@pytest.mark.parametrize("text", [
    "Refused above the 16 GiB limit.",
    "at most EVALCORE_LOAD_TIMEOUT, default 600 s",
    "1 MB blocks: the reader's working memory stays ~1 MB of parsed fields per block instead of the whole "
    "file's; larger blocks cost peak memory and were no faster (docs/benchmarks.md section 10.2)",
    "a block's uint64 temporaries (512 kB each) stay in the CPU's L2 cache",
    "Presentation mode: type and controls 1.25 x larger, for the back row of a lecture room.",
    "called with the fraction done at least every ~5% of the work",
    "a 100-run pair table is several MB",
    "the tensor: 2 bytes per run x topic x rank cell",
    "padded to 22 characters as trec_eval prints it (``%-22s``)",
    ">>> time_limit(b'x' * 10**6).seconds   # 60 + 3 x (1 + 6)\n63.0",
    "one thread on small data, where a second one cost more than it gave (docs/benchmarks.md section 15.3)",
])
def test_the_rule_leaves_limits_and_constants(text):
    assert not quotes(text), quotes(text)


def test_no_comment_or_docstring_quotes_a_measurement():
    found = [q for q in find_quotes() if q.split(":", 1)[0] not in PENDING]
    assert not found, (f"{len(found)} measurement(s) quoted in comments or docstrings: say why the code is shaped "
                       "so and point to the docs/benchmarks.md section that holds the number (move it there if "
                       "it is not), as the test's docstring describes:\n" + "\n".join(found))


def test_pending_files_still_need_their_entry():
    """An entry of :data:`PENDING` whose file quotes no measurement any more is stale: remove it."""
    quoted = {q.split(":", 1)[0] for q in find_quotes()}
    stale = [f for f in PENDING if f not in quoted]
    assert not stale, f"rewritten, so no longer pending: {stale}"
