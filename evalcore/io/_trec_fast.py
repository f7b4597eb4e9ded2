"""Run parsing, fast path: pyarrow's CSV reader over a whole TREC run file.

Returns ``None`` whenever anything looks off (parse error, empty field, a
missing or non-finite score); the caller then falls back to :mod:`._trec_lines`, whose job
is to name the first bad line.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.csv as pcsv

from . import _arrow as ak
from ._dochash import as_numpy
from ._lines import raw_blocks

_RUN_COLS = ["t", "q", "d", "r", "s", "g"]
# 1 MB blocks: the reader's working memory stays ~1 MB of parsed fields per block instead of the whole
# file's; larger blocks cost peak memory and were no faster (docs/benchmarks.md section 10.2)
BLOCK = 1 << 20
PARSE_OPTIONS = pcsv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False, escape_char=False,
                           newlines_in_values=False, ignore_empty_lines=True)


def _convert_options(rank: bool, trailing: bool) -> pcsv.ConvertOptions:
    types = {c: pa.string() for c in _RUN_COLS + ["x"] * trailing}
    types["s"] = pa.float64()
    if rank:
        types["r"] = pa.int64()
    # check_utf8=False: text_bytes has already checked the whole file is UTF-8, and a second pass here
    # was a noticeable share of the parse (docs/benchmarks.md section 17)
    return pcsv.ConvertOptions(column_types=types, null_values=[], strings_can_be_null=False,
                               quoted_strings_can_be_null=False, check_utf8=False)


_CONVERT = {(rank, trailing): _convert_options(rank, trailing) for rank in (False, True) for trailing in (False, True)}


def drop_comments(data: bytes) -> bytes:
    """Without ``#`` comment lines (ir_metadata headers); the same bytes when there are none."""
    if b"#" not in data:  # one memchr pass; the common case
        return data
    if not (data[:4096].lstrip()[:1] == b"#" or b"\n#" in data or b"\r#" in data or b"\n #" in data):
        return data
    # a block of lines at a time (the whole file's line list was ~2.5 x its text)
    return b"\n".join(b"\n".join(ln for ln in lines if not ln.lstrip().startswith(b"#"))
                      for lines in raw_blocks(data))


def blank_layout(data: bytes) -> str:
    """How the fields are separated, as one pass of byte searches tells:

    * ``"plain"``: single blanks between fields and nowhere else; arrow reads the text as it is;
    * ``"trailing"``: the same plus one blank ending the lines (as some systems write runs); arrow reads
      it with a seventh column that must be empty on every line (a line without it, or with more, sends
      the file to :func:`clean_blanks` after all), which saves the cleaned copy (~15 ms per 4 MB run);
    * ``"messy"``: tabs or other whitespace anywhere (a fast byte search over the whole file: a tab
      inside a 6-field line would otherwise glue two fields), or repeated or leading blanks: cleaned.

    Repeated, leading and trailing blanks are looked for in the first 64 kB only: elsewhere they leave
    an empty field or a wrong field count, which sends the file to the cleaner anyway."""
    head = data[:65536]
    if (b"\t" in data or b"\x0b" in data or b"\x0c" in data or b"  " in head or b"\n " in head
            or head[:1] == b" "):
        return "messy"
    return "trailing" if b" \n" in head or b" \r" in head else "plain"


def needs_cleaning(data: bytes) -> bool:
    """Whitespace other than single blanks between fields (:func:`blank_layout`)."""
    return blank_layout(data) != "plain"


def clean_blanks(d: bytes) -> bytes:
    """Any whitespace run inside a line -> one blank; no blanks at line ends.
    Keeps the number of lines (a lone CR counts as a line end, like splitlines)."""
    if b"\r" in d:
        d = d.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    for ch in (b"\t", b"\x0b", b"\x0c"):
        if ch in d:
            d = d.replace(ch, b" ")
    while b"  " in d:
        d = d.replace(b"  ", b" ")
    if b" \n" in d:
        d = d.replace(b" \n", b"\n")
    if b"\n " in d:
        d = d.replace(b"\n ", b"\n")
    return d.strip(b" ")


def read_table(data: bytes, names, convert: pcsv.ConvertOptions) -> pa.Table | None:
    """pyarrow's CSV reader over space-separated ``data`` (columns ``names``, one thread, chunks of
    ``BLOCK`` bytes), or None when it refuses the text (the line loops then name the bad line)."""
    try:
        return pcsv.read_csv(pa.py_buffer(data),
                             read_options=pcsv.ReadOptions(column_names=list(names), use_threads=False,
                                                           block_size=BLOCK),
                             parse_options=PARSE_OPTIONS, convert_options=convert)
    except (pa.ArrowInvalid, pa.ArrowException, ValueError):
        return None


def arrow_trec(data: bytes, rank: bool, trailing: bool = False):
    """(topic, doc, score, rank) arrow arrays, or None if anything looks off. ``trailing``: every line
    ends in one blank (:func:`blank_layout`), read as a seventh column that must be empty throughout."""
    tb = read_table(data, _RUN_COLS + ["x"] * trailing, _CONVERT[rank, trailing])
    if tb is None or tb.num_rows == 0:
        return None
    if trailing and ak.total_length(tb.column("x")):
        return None
    for c in ("t", "q", "d", "r", "g"):  # (on the chunks: only the columns kept are combined)
        if c == "r" and rank:
            continue
        if ak.min_length(tb.column(c)) == 0:
            return None
    s = tb.column("s")
    if s.null_count or (rank and tb.column("r").null_count):
        return None
    if not ak.all_finite(s):  # nan, inf, 1e999: the line parser names the line
        return None
    r = as_numpy(tb.column("r")) if rank else None
    t, d = tb.column("t"), tb.column("d")
    del tb  # the other columns' chunks go before the kept ones are combined
    return t.combine_chunks(), d.combine_chunks(), s.combine_chunks(), r
