"""An in-memory fragment store (Note [Fragment reuse]) for tests of fragment clients."""

from __future__ import annotations


class MemoryStore:
    """``texts``: what the last run left; ``remembered``: what this run recorded."""

    def __init__(self, texts: dict[tuple[str, str], str] | None = None) -> None:
        self.texts = dict(texts or {})
        self.remembered: dict[tuple[str, str], str] = {}

    def fragment(self, target: str, local: str) -> str | None:
        return self.texts.get((target, local))

    def remember(self, target: str, local: str, text: str) -> None:
        self.remembered[(target, local)] = text
