"""The fictional retailer's policy sources, versioned by revision.

Two tenants share the assistant: ``acme`` (whose customers the demo dataset speaks for)
and ``globex``, whose policy must never answer an ``acme`` question. Revision
``returns-v3`` is current; ``returns-v2`` predates the custom-printed exception, and a
stale index built from it is one of the demo's faults.

Each section says which fact it supports and which questions it answers (``cues``: the
question answers from the section when it contains every word of one cue). Precedence is
stated in the policy itself (``acme/precedence``) and recorded as ``overrides``.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay.demo._bm25 import tokenize

CURRENT_REVISION = "returns-v3"


@dataclass(frozen=True)
class Section:
    """One section of a tenant's policy."""

    id: str
    title: str
    text: str
    kind: str = "rule"  # rule | exception | note
    fact: str | None = None
    cues: tuple[tuple[str, ...], ...] = ()
    overrides: tuple[str, ...] = ()

    @property
    def tenant(self) -> str:
        return self.id.split("/", 1)[0]

    def answers(self, question: str) -> bool:
        """True when the question asks what this section answers."""
        words = set(tokenize(question))
        return any(all(w in words for w in cue) for cue in self.cues)


_ACME = (
    Section(
        "acme/standard-window",
        "Standard return window",
        "Items bought online or in store can be returned for a full refund up to 30 days "
        "after delivery, provided they are unused and in their original packaging.",
        fact="return_window_30_days",
        cues=(("return", "day"), ("return", "window"), ("return", "long")),
    ),
    Section(
        "acme/defect-window",
        "Defective items",
        "Report a defective, faulty or damaged product within 7 days of receiving it and "
        "we repair or replace it.",
        fact="defect_window_7_days",
        cues=(("defective",), ("faulty",), ("damaged",), ("broken",)),
    ),
    Section(
        "acme/custom-exception",
        "Custom-printed products",
        "Personalised goods made to order, such as a mug or shirt printed with your own "
        "photo or name, are excluded from returns.",
        kind="exception",
        fact="custom_excluded",
        cues=(("custom",), ("printed",), ("personalised",), ("photo",)),
        overrides=("acme/standard-window",),
    ),
    Section(
        "acme/final-sale-exception",
        "Final sale items",
        "Clearance items marked final sale are excluded from returns and exchanges.",
        kind="exception",
        fact="final_sale_excluded",
        cues=(("final", "sale"), ("clearance",)),
        overrides=("acme/standard-window",),
    ),
    Section(
        "acme/refund-store-credit",
        "Refunds (2023 terms)",
        "Refunds for approved returns are issued as store credit.",
        fact="refund_store_credit",
        cues=(("refund",), ("money", "back"), ("store", "credit")),
    ),
    Section(
        "acme/refund-original-payment",
        "Refund method",
        "Refunds for approved returns are paid to the original payment method, such as "
        "your card, within 5 business days. This section replaces the 2023 refund terms.",
        fact="refund_original_payment",
        cues=(("refund",), ("money", "back"), ("store", "credit")),
        overrides=("acme/refund-store-credit",),
    ),
    Section(
        "acme/precedence",
        "Precedence",
        "Where two sections conflict, an exception overrides the general rule it qualifies, "
        "and a newer section overrides the terms it replaces.",
        kind="note",
    ),
)

_GLOBEX = (
    Section(
        "globex/standard-window",
        "Return window",
        "Globex customers can return items within 60 days of purchase.",
        fact="return_window_60_days",
        cues=(("return", "day"), ("return", "window"), ("return", "long")),
    ),
    Section(
        "globex/shipping-fee",
        "Return shipping fee",
        "Return shipping costs a flat fee of 10 dollars, deducted from the refund.",
        fact="shipping_fee_10",
        cues=(("shipping",), ("ship",), ("postage",)),
    ),
    Section(
        "globex/restocking-fee",
        "Restocking fee",
        "A restocking fee of 15 percent applies to opened electronics.",
        fact="restocking_fee_15",
        cues=(("restocking",),),
    ),
)

_V3 = _ACME + _GLOBEX
CORPORA: dict[str, tuple[Section, ...]] = {
    "returns-v3": _V3,
    "returns-v2": tuple(s for s in _V3 if s.id != "acme/custom-exception"),
}


def corpus(revision: str, tenant: str | None) -> tuple[Section, ...]:
    """The sections of ``revision``: only ``tenant``'s, or every tenant's when None."""
    return tuple(s for s in CORPORA[revision] if tenant is None or s.tenant == tenant)
