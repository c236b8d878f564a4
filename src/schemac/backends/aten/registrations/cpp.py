"""Line-level helpers for the C++ the registration emitters print.

Bodies are built as lists of statements and wrapped by :func:`block`, so no
Python string in this package spells C++ braces through f-string escapes.
"""

from __future__ import annotations

from collections.abc import Iterable


def indent(lines: Iterable[str], by: str = "  ") -> list[str]:
    return [f"{by}{line}" if line else "" for text in lines for line in text.split("\n")]


def block(head: str, body: Iterable[str], *, tail: str = "") -> str:
    """``head {``, the indented ``body`` lines, ``}`` + ``tail``."""
    return "\n".join([head + " {", *indent(body), "}" + tail])


def call(function: str, args: Iterable[str]) -> str:
    return f"{function}({', '.join(args)})"
