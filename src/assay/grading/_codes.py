"""A case-trial's verdict as small integers, for counting a million of them at once: the
outcome's kind and the status, as packed by ``grading._packed`` and a stored run's SQL
and counted by ``metrics._tally``.

The kind: error 0, answer 1, none 2 (no kind stored), any other 3 (an abstention). The
status: none 0 (no judgment), passed 1, failed 2, ungraded 3, missing 4, error 5, any
other 6, to be graded 7.
"""

from __future__ import annotations

NONE, PASSED, FAILED, UNGRADED, MISSING, ERROR, OTHER, UNJUDGED = range(8)
ERROR_KIND, ANSWER_KIND, NO_KIND, OTHER_KIND = 0, 1, 2, 3
