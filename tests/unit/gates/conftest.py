"""The seed reports the report tests use, for the tests of the gates on them."""

from tests.unit.report.conftest import abstain_only, report, report_e7

__all__ = ["abstain_only", "report", "report_e7"]
