"""What `assay run --receive-spans` says when it stops: spans attached, dropped, refused."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs assay[otlp]")

from tests.unit.tracing.test_span_receiver import TRACE, Links, _json_export, _post

from assay.cli.run import _stop_receiver
from assay.tracing._receiver import SpanReceiver


class _Closed:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_unknown_traces_are_reported_as_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    links = Links()
    receiver = SpanReceiver(links.lookup, links.sink, port=0).start()
    assert _post(receiver.endpoint, _json_export(TRACE, "stray"), "application/json") == 200
    store = _Closed()
    _stop_receiver((receiver, store))  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "received 1 application span(s): 0 attached to their case-trials" in err
    assert "warning: 1 span(s) of traces no case-trial started were dropped" in err
    assert store.closed
