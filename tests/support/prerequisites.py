"""What happens to a test whose prerequisite (shared data, a server binary) is missing: outside CI it is skipped;
under CI (the environment variable CI is ``true`` or ``1``, as .ci/run sets) it fails, so CI cannot pass by
skipping. Only the Neo4j tests may skip under CI, because no Neo4j server can be installed here; they skip with
the reason ``NO_NEO4J`` and the terminal summary counts them.

tests/conftest.py registers a ``SkipLedger`` as a pytest plugin. It is the backstop: under CI, any other test
that ends skipped (a skip mark, an importorskip, an empty parameter set, a bare ``pytest.skip``) makes the
session fail, and the summary lists each one with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import NoReturn

import pytest

NO_NEO4J = "Neo4j: no server (set NEO4J_URI and NEO4J_AUTH=user/password to run the Neo4j tests)"


def in_ci() -> bool:
    """True when the environment variable CI is ``true`` or ``1`` (any case)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1"}


def missing(what: str, fix: str) -> NoReturn:
    """Skip the running test because ``what`` is missing, or, under CI, fail it; ``fix`` says what to do."""
    message = f"{what} is missing: {fix}"
    if in_ci():
        pytest.fail(f"{message} (CI is set, so a missing prerequisite is a failure, not a skip)", pytrace=False)
    pytest.skip(message)


def _skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SkipLedger:
    """Every skipped test of the session: the Neo4j ones (allowed) and the others (a failure under CI)."""

    def __init__(self) -> None:
        self.neo4j: list[str] = []
        self.other: dict[str, str] = {}

    def _note(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if not report.skipped or hasattr(report, "wasxfail"):
            return
        reason = _skip_reason(report)
        if NO_NEO4J in reason:
            self.neo4j.append(report.nodeid)
        else:
            self.other[report.nodeid] = reason

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if in_ci() and self.other and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> Iterator[None]:
        """After the short test summary, just above the final counts."""
        yield
        if self.neo4j:
            terminalreporter.write_line(
                f"Neo4j: {len(self.neo4j)} tests skipped (no server: set NEO4J_URI and NEO4J_AUTH=user/password)",
                yellow=True,
            )
        if in_ci() and self.other:
            terminalreporter.section("skipped under CI", sep="=", red=True)
            for nodeid, reason in self.other.items():
                terminalreporter.write_line(f"SKIPPED {nodeid}: {reason}")
            terminalreporter.write_line(
                f"CI: {len(self.other)} tests skipped, but under CI only the Neo4j tests may skip; "
                "the session fails. Provide what each one is missing.",
                red=True,
                bold=True,
            )
