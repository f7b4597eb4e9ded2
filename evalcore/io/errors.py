"""The one error type of evalcore.io: file, line, offending text and the fix."""
from __future__ import annotations

import re

__all__ = ["InputError", "DUP_FIX", "OPTION_HINTS", "option_hints", "shorten", "too_many", "unforeseen",
           "MAX_QUOTE", "MAX_MESSAGE"]

DUP_FIX = "pass keep_first_duplicate=True / --keep-first-duplicate to keep the first occurrence"

#: The options a loading error's fix names, keyed by a plain name, each with the library's and the
#: command line's wording as the messages write it (a regular expression: some carry a number).
#: ``str(e)`` reads as before (the command line's and the library's words); a front end with controls
#: of its own (the dashboard) says the same fix in its words with :func:`option_hints`, which finds the
#: options in the text - an error's text crosses a process boundary, its attributes need not.
OPTION_HINTS: dict[str, str] = {
    "keep_first_duplicate": r"pass keep_first_duplicate=True / --keep-first-duplicate",
    "depth": r"depth=[\d,]* / --depth (?:N|[\d,]+)",
    "qrels_file": r"--qrels FILE; load_collection's first argument",
    "qrels_format": (r"(?:say which format it is: )?--qrels-format trec\|ntcir\|rel on the command line, "
                     r"qrels_fmt= in load_collection, fmt= in read_qrels"),
    "limit": r"limits=Limits\([^)]*\)(?: or --[a-z-]+ (?:SIZE|N))?",
    "save_settings": r" or by --save-settings",
    "per_topic": r"per_topic=False / no --per-topic",
}
_OPTION_RE = re.compile("|".join(f"(?P<{k}>{v})" for k, v in OPTION_HINTS.items()))


def option_hints(text: str) -> list[tuple[str, int, int]]:
    """Where ``text`` (an error's message) names an option of :data:`OPTION_HINTS`: ``(key, start, end)``
    for each, in order.

    >>> option_hints("fix: pass keep_first_duplicate=True / --keep-first-duplicate to keep the first")
    [('keep_first_duplicate', 5, 60)]
    """
    return [(str(m.lastgroup), m.start(), m.end()) for m in _OPTION_RE.finditer(text)]


#: longest quoted line (characters) and longest message in an InputError; a 32 MB line is cut
MAX_QUOTE = 200
MAX_MESSAGE = 2000


def _cut(s: str, n: int) -> str:
    """``s`` itself, or its first ``n`` characters and how many more there were."""
    return s if len(s) <= n else f"{s[:n]}... [{len(s) - n:,} more characters]"


def shorten(token, n: int = 60) -> str:
    """``repr`` of a token for a message, cut to about ``n`` characters."""
    r = repr(token)
    size = len(token) if isinstance(token, (str, bytes)) else len(r)
    return r if len(r) <= n else f"{r[:n]}... ({size:,} characters)"


class InputError(ValueError):
    """Bad input: names the file, the line, the offending text and the fix.

    Attributes ``file`` (str | None), ``line`` (1-based int | None), ``text``
    (the offending line | None), ``hint`` (what to do | None),
    ``message`` (the bare problem) and ``options`` (the keys of :data:`OPTION_HINTS`
    the hint names, so a front end can word the fix for its own controls). Quoted text and file names are cut to
    ``MAX_QUOTE`` characters, messages to ``MAX_MESSAGE`` (a 32 MB line is
    never echoed whole). ``str(e)`` reads::

        runs/a.txt, line 12: expected 6 fields (topic Q0 doc rank score tag), found 5
          line: 'q1 Q0 d1 1 2.5'
          fix: ...
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 text: str | None = None, hint: str | None = None):
        self.message = _cut(str(message), MAX_MESSAGE)
        self.file = None if file is None else _cut(str(file), MAX_QUOTE)
        self.line = line
        self.text = None if text is None else _cut(str(text), MAX_QUOTE)
        self.hint = None if hint is None else _cut(str(hint), MAX_MESSAGE)
        self.options = tuple(k for k, _, _ in option_hints(self.hint or ""))
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file + (f", line {self.line}" if self.line is not None else "") + ": "
        elif self.line is not None:
            where = f"line {self.line}: "
        out = where + self.message
        if self.text is not None:
            out += f"\n  line: {self.text!r}"
        if self.hint:
            out += f"\n  fix: {self.hint}"
        return out

    def __str__(self) -> str:
        return self._render()


def too_many(what: str, n: int, limit: int, option: str, file: str | None = None) -> InputError:
    """The error for a count over one of :class:`~evalcore.io.limits.Limits`' bounds, naming the option that
    raises it."""
    return InputError(f"{n:,} {what}, more than the limit of {limit:,}", file=file,
                      hint=f"raise it: limits=Limits({option.replace('-', '_').lstrip('_')}=...) or "
                           f"--{option} N")


def unforeseen(e: BaseException, file: str | None) -> InputError:
    """An InputError for an exception the loader did not foresee (never a bare traceback)."""
    if isinstance(e, MemoryError):
        return InputError("not enough memory to load this input", file=file,
                          hint="evaluate fewer ranks (depth= / --depth N), fewer runs or topics, or lower the "
                               "limits (limits=Limits(...)) so that input this large is refused early")
    return InputError(f"could not read this input ({type(e).__name__}: {_cut(str(e), MAX_QUOTE)})", file=file,
                      hint="check that it is a TREC / NTCIR qrels or run file; please report the file if it is")
