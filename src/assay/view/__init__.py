"""The local viewer: stored runs, run pages, comparisons and a case across runs, read-only;
and the review page that labels a judged run's answers (``open_review``).

>>> app = create_app(open_store("sqlite:///.assay/assay.db", read_only=True))  # doctest: +SKIP
"""

from assay.view._app import create_app
from assay.view._hosts import LOOPBACK_NAMES, allowed_hosts
from assay.view._review import Review, open_review
from assay.view._serve import host_warning, serve

__all__ = [
    "LOOPBACK_NAMES",
    "Review",
    "allowed_hosts",
    "create_app",
    "host_warning",
    "open_review",
    "serve",
]
