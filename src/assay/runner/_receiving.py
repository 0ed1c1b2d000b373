"""Receiving the application's own spans while a run goes (``assay run --receive-spans``):
a receiver on 127.0.0.1 that stores each span with the case-trial whose traceparent it
carries, and what it says when it starts and stops."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from assay.errors import AssayConfigError
from assay.store import RunStore, open_store

if TYPE_CHECKING:
    from assay.tracing import SpanReceiver

__all__ = ["Notify", "SpanReceiving", "receiving_spans"]

Notify = Callable[[str], None]
"""Where a run's notices go, as plain lines (the command line prints them on stderr)."""


class SpanReceiving:
    """A started span receiver and the store connection it writes through; ``stop`` ends
    both once and says what was received."""

    def __init__(self, receiver: SpanReceiver, own: RunStore, notify: Notify) -> None:
        self.receiver, self.own, self.notify = receiver, own, notify
        self.stopped = False

    @classmethod
    def start(cls, store: str | None, port: int, notify: Notify) -> SpanReceiving:
        """A receiver listening on 127.0.0.1:``port`` (0: any free port), writing to
        ``store``; ``AssayConfigError`` when the OTLP package is missing or the port taken."""
        try:
            import opentelemetry.proto  # noqa: F401

            # Deferred: the receiver (and http.server) loads only for a run that receives.
            from assay.tracing import SpanReceiver
        except ImportError:
            raise AssayConfigError(
                "--receive-spans needs the OTLP protobuf package: pip install 'assay[otlp]'"
            ) from None
        own = open_store(store)  # the receiver's thread writes through its own connections
        try:
            receiver = SpanReceiver(own.trace_links, own.add_spans, port).start()
        except OSError as exc:
            own.close()
            raise AssayConfigError(
                f"--receive-port {port}: cannot listen on 127.0.0.1 ({exc})"
            ) from None
        notify(f"receiving spans on {receiver.endpoint} (OTLP/HTTP, protobuf or JSON)")
        return cls(receiver, own, notify)

    def stop(self) -> None:
        """Stop receiving (every span sent so far is stored); a second call does nothing."""
        if self.stopped:
            return
        self.stopped = True
        receiver = self.receiver
        try:
            receiver.stop()
        finally:
            self.own.close()
        self.notify(
            f"received {receiver.received} application span(s): {receiver.attached} "
            "attached to their case-trials"
        )
        if receiver.dropped or receiver.rejected:
            self.notify(
                f"warning: {receiver.dropped} span(s) of traces no case-trial started were "
                f"dropped; {receiver.rejected} malformed export(s) refused"
            )


@contextmanager
def receiving_spans(
    receive: bool, store: str | None, port: int, notify: Notify
) -> Iterator[SpanReceiving | None]:
    """Spans received while the block runs (when ``receive``), stopped when it ends."""
    receiving = SpanReceiving.start(store, port, notify) if receive else None
    try:
        yield receiving
    finally:
        if receiving is not None:
            receiving.stop()
