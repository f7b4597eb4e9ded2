"""The one error type of evalcore.io: file, line, offending text and the fix."""
from __future__ import annotations

_DUP_FIX = "pass keep_first_duplicate=True / --keep-first-duplicate to keep the first occurrence"


class InputError(ValueError):
    """Bad input: names the file, the line, the offending text and the fix.

    Attributes ``file`` (str | None), ``line`` (1-based int | None), ``text``
    (the offending line | None), ``hint`` (what to do | None) and
    ``message`` (the bare problem). ``str(e)`` reads::

        runs/a.txt, line 12: expected 6 fields (topic Q0 doc rank score tag), found 5
          line: 'q1 Q0 d1 1 2.5'
          fix: ...
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 text: str | None = None, hint: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.text = text
        self.hint = hint
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
