"""What receiving a run's spans says when it stops: spans attached, dropped, refused."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http", reason="needs assay[otlp]")

from tests.unit.tracing.test_span_receiver import TRACE, Links, _json_export, _post

from assay.errors import AssayConfigError
from assay.runner import SpanReceiving
from assay.tracing import SpanReceiver


class _Closed:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_unknown_traces_are_reported_as_a_warning() -> None:
    links = Links()
    receiver = SpanReceiver(links.lookup, links.sink, port=0).start()
    assert _post(receiver.endpoint, _json_export(TRACE, "stray"), "application/json") == 200
    store = _Closed()
    said: list[str] = []
    receiving = SpanReceiving(receiver, store, said.append)  # type: ignore[arg-type]
    receiving.stop()
    assert said == [
        "received 1 application span(s): 0 attached to their case-trials",
        "warning: 1 span(s) of traces no case-trial started were dropped; "
        "0 malformed export(s) refused",
    ]
    assert store.closed


def test_a_second_stop_says_nothing_more() -> None:
    links = Links()
    receiver = SpanReceiver(links.lookup, links.sink, port=0).start()
    said: list[str] = []
    receiving = SpanReceiving(receiver, _Closed(), said.append)  # type: ignore[arg-type]
    receiving.stop()
    receiving.stop()
    assert said == ["received 0 application span(s): 0 attached to their case-trials"]


def test_a_taken_port_is_refused_naming_the_option(tmp_path: Path) -> None:
    links = Links()
    taken = SpanReceiver(links.lookup, links.sink, port=0).start()
    said: list[str] = []
    try:
        with pytest.raises(AssayConfigError, match=rf"--receive-port {taken.port}: cannot listen"):
            SpanReceiving.start(f"sqlite:///{tmp_path}/assay.db", taken.port, said.append)
    finally:
        taken.stop()
    assert said == []
