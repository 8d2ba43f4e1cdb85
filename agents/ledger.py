"""The context ledger: one total token budget shared by every memory section.

Layers are filled in priority order (settings.MEMORY_LAYERS); each gets at most its own
budget and never more than what is left, so lower priorities are cut first and the
total is never exceeded.
"""

from dataclasses import asdict, dataclass, field

from core.tokens import count_tokens, truncate_tokens


@dataclass
class Section:
    layer: str
    label: str
    text: str
    tokens: int = 0
    budget: int = 0
    prompt_order: int = 0
    items: list = field(default_factory=list)  # ids of what was injected (runs, facts, chunks)

    def as_dict(self) -> dict:
        return asdict(self)


class ContextLedger:
    def __init__(self, total_budget: int):
        self.total_budget = max(0, int(total_budget))
        self.used = 0
        self.sections: list[Section] = []

    @property
    def remaining(self) -> int:
        return max(0, self.total_budget - self.used)

    def grant(self, wanted: int) -> int:
        """The budget a layer may fill: its own, capped by what is left."""
        return max(0, min(int(wanted), self.remaining))

    def add(self, section: Section | None, *, budget: int) -> Section | None:
        """Record a section, cutting it if a layer overran its grant (defence in depth)."""
        if section is None or not section.text:
            return None
        section.budget = budget
        section.tokens = count_tokens(section.text)
        if section.tokens > budget:
            section.text = truncate_tokens(section.text, budget)
            section.tokens = count_tokens(section.text)
        if not section.text:
            return None
        self.used += section.tokens
        self.sections.append(section)
        return section

    def ordered_sections(self) -> list[Section]:
        return sorted(self.sections, key=lambda s: s.prompt_order)

    def snapshot(self) -> dict:
        return {
            "sections": [s.as_dict() for s in self.ordered_sections()],
            "total_tokens": self.used,
            "total_budget": self.total_budget,
        }
