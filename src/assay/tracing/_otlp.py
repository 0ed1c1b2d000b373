"""OTLP/HTTP exporters for a run's spans and metrics: one collector address, one path per
signal (``/v1/traces``, ``/v1/metrics``)."""

from __future__ import annotations

import logging
import socket
from typing import Any, Literal
from urllib.parse import urlsplit

from assay.errors import AssayConfigError

Signal = Literal["traces", "metrics"]
_PATHS = ("/v1/traces", "/v1/metrics")


def otlp_url(endpoint: str, signal: Signal) -> str:
    """The OTLP/HTTP URL of ``signal`` at a collector address (any signal path replaced).

    >>> otlp_url("http://127.0.0.1:4318", "traces")
    'http://127.0.0.1:4318/v1/traces'
    >>> otlp_url("http://127.0.0.1:4318/v1/traces", "metrics")
    'http://127.0.0.1:4318/v1/metrics'
    """
    base = endpoint.rstrip("/")
    for path in _PATHS:
        base = base.removesuffix(path)
    return f"{base}/v1/{signal}"


def otlp_traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL for a collector address (``/v1/traces`` added if absent)."""
    return otlp_url(endpoint, "traces")


def otlp_metrics_url(endpoint: str) -> str:
    """The OTLP/HTTP metrics URL for a collector address (``/v1/metrics`` added if absent)."""
    return otlp_url(endpoint, "metrics")


def otlp_exporter(endpoint: str, signal: Signal) -> Any:
    """The OTLP/HTTP (protobuf) exporter of ``signal`` for a collector address; a config
    error naming the extra to install when the exporter package is missing."""
    url = otlp_url(endpoint, signal)
    try:
        if signal == "traces":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter(endpoint=url, timeout=10)
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

        return OTLPMetricExporter(endpoint=url, timeout=10)
    except ImportError:
        raise AssayConfigError(
            f"exporting {signal} over OTLP needs the OTLP exporter: pip install 'assay[otlp]'"
        ) from None


def reachable_collector(endpoint: str, timeout_s: float = 2.0) -> str | None:
    """``endpoint`` when a collector accepts connections there; None (and one warning on
    the ``assay`` logger) when nothing answers, so a run does not wait on retries.

    An address that is not an http(s) URL is a config error.
    """
    try:
        parts = urlsplit(endpoint)
    except ValueError:  # e.g. an unclosed "[" in the host
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AssayConfigError(
            f"--otlp {endpoint}: give the collector's OTLP/HTTP URL, e.g. http://127.0.0.1:4318"
        )
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:  # "http://host:abc", "http://host:99999"
        raise AssayConfigError(
            f"--otlp {endpoint}: the port must be a number from 1 to 65535, "
            "e.g. http://127.0.0.1:4318"
        ) from None
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout_s).close()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        logging.getLogger("assay").warning(
            "assay: no OTLP collector answers at %s (%s); spans stay in the run store only "
            "and no metrics are exported",
            endpoint,
            reason.lower(),
        )
        return None
    return endpoint
