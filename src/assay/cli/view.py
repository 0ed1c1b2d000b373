"""``assay view``: a local web viewer over the run store, read-only; with ``--review``,
also the page that labels a judged run's answers into a labels file."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._flags import CONFIDENCE, INTERVAL


def view(
    store: str | None = typer.Option(
        None, "--store", help="Run store URL (default: $ASSAY_STORE or .assay/assay.db)."
    ),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help="Interface to bind; anything but loopback prints a warning (and is refused "
        "with --review).",
    ),
    port: int = typer.Option(8765, "--port", help="Port to listen on."),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        help="A Host name the viewer answers besides the loopback names and the --host "
        "address (repeatable), e.g. the machine's DNS name when binding elsewhere. Requests "
        "naming any other host get 421 (this stops DNS-rebinding pages).",
    ),
    review: str | None = typer.Option(
        None,
        "--review",
        metavar="SUITE_OR_RUN",
        help="Also serve the review page (/review) to label the judged answers of this "
        "stored run (or of a suite's latest completed judged run), blind to the judge, "
        "into --labels.",
    ),
    labels: Path | None = typer.Option(
        None,
        "--labels",
        help="--review: the labels file (JSONL), read to resume and appended to, one line "
        "per label; `assay calibrate` reads it.",
    ),
    reviewer: str | None = typer.Option(
        None, "--reviewer", help="--review: who labels (else named on the page)."
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        help="--review: the seed that draws the sample (default: the one the labels file "
        "records, else 0).",
    ),
    labels_wanted: int | None = typer.Option(
        None,
        "--labels-wanted",
        help="--review: how many answers to label, taken in turn from the judge's passes "
        "and fails (default: every judged answer).",
    ),
    unblind: bool = typer.Option(
        False, "--unblind", help="--review: show the judge's verdict before labelling."
    ),
    confidence: float = CONFIDENCE,
    interval: str = INTERVAL,
) -> None:
    """Browse stored runs in a web browser: headline rates, run pages, comparisons, a case
    across runs. Read-only: the viewer never changes the store. With --review, label a
    judged run's answers for `assay calibrate` (docs/viewer.md)."""
    import sys

    from assay.cli._options import interval_setting
    from assay.errors import AssayConfigError
    from assay.store import open_store
    from assay.view import LOOPBACK_NAMES, allowed_hosts, create_app, open_review, serve

    if not 0 < port < 65536:
        raise AssayConfigError(f"--port {port}: must be between 1 and 65535")
    setting = interval_setting(confidence, interval)
    if review is None:
        given = [
            name for name, value in _review_only(labels, reviewer, seed, labels_wanted, unblind)
        ]
        if given:
            raise AssayConfigError(f"{', '.join(given)}: only with --review SUITE_OR_RUN")
    else:
        if host not in LOOPBACK_NAMES or allow_host:
            raise AssayConfigError(
                f"--review serves a page that writes labels: it is served on loopback only "
                f"(--host 127.0.0.1, localhost or ::1, no --allow-host), not {host}"
                if host not in LOOPBACK_NAMES
                else "--review serves a page that writes labels: no --allow-host with it"
            )
        if labels is None:
            raise AssayConfigError("--review needs --labels PATH (a .jsonl file to append to)")
        if labels_wanted is not None and labels_wanted < 1:
            raise AssayConfigError(f"--labels-wanted {labels_wanted}: must be at least 1")
    hosts = allowed_hosts(host, allow_host)
    reader = open_store(store, read_only=True)
    try:
        session = None
        if review is not None and labels is not None:
            session = open_review(
                reader,
                review,
                labels,
                seed=seed,
                wanted=labels_wanted,
                reviewer=reviewer.strip() if reviewer else None,
                unblind=unblind,
            )
            for line in session.summary():
                sys.stderr.write(line + "\n")
        app = create_app(reader, interval=setting, hosts=hosts, review=session)
        serve(app, host=host, port=port, hosts=hosts)
    finally:
        reader.close()


def _review_only(
    labels: Path | None,
    reviewer: str | None,
    seed: int | None,
    wanted: int | None,
    unblind: bool,
) -> list[tuple[str, object]]:
    """The review options given (a value other than their default)."""
    given = [
        ("--labels", labels),
        ("--reviewer", reviewer),
        ("--seed", seed),
        ("--labels-wanted", wanted),
        ("--unblind", unblind or None),
    ]
    return [(name, value) for name, value in given if value is not None]
