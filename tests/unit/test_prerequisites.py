"""The rule for missing test prerequisites (tests/support/prerequisites.py, wired in by tests/conftest.py), run in
throwaway pytest sessions with the real conftest: outside CI a missing prerequisite skips, under CI (CI=true or
CI=1) it fails, and under CI any skip other than the Neo4j tests' fails the session."""

from __future__ import annotations

from pathlib import Path

import pytest

# The inner sessions run in this process and drop the modules they imported; numpy (under neo4j_env) cannot be
# imported twice in one process, so it is imported here, once.
import support.neo4j_env  # noqa: F401

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parents[1]

NEEDS_DATA = """
from support.shared import shared_path

def test_needs_shared_data():
    shared_path("no-such-folder", "data.nt")
"""

SKIPS = """
import pytest

def test_passes():
    pass

def test_skips_itself():
    pytest.skip("the frobnicator is not installed")

@pytest.mark.skip(reason="not today")
def test_marked_skip():
    pass

@pytest.mark.xfail(strict=True, reason="a known bug")
def test_known_bug():
    assert False
"""

NEEDS_NEO4J = """
from support.neo4j_env import neo4j_store

def test_needs_neo4j():
    neo4j_store()

def test_passes():
    pass
"""


@pytest.fixture
def session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytest session in a temporary directory with this suite's conftest and ``support`` on the path."""
    for name in ("CI", "NEO4J_URI", "NEO4J_AUTH"):
        monkeypatch.delenv(name, raising=False)
    pytester.syspathinsert(TESTS)
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))
    return pytester


def run(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None) -> pytest.RunResult:
    if ci is not None:
        monkeypatch.setenv("CI", ci)
    return session.runpytest("-ra", "-p", "no:cacheprovider")


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_missing_shared_data_skips_outside_ci(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                              ci: str | None) -> None:
    session.makepyfile(NEEDS_DATA)
    result = run(session, monkeypatch, ci)
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["SKIPPED*shared test data */no-such-folder/data.nt is missing*HYBRIDKG_SHARED*"])


@pytest.mark.parametrize("ci", ["true", "1", "TRUE"])
def test_missing_shared_data_fails_under_ci(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                            ci: str) -> None:
    session.makepyfile(NEEDS_DATA)
    result = run(session, monkeypatch, ci)
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "FAILED*::test_needs_shared_data - Failed: shared test data */no-such-folder/data.nt is missing: "
            "*HYBRIDKG_SHARED* (CI is set, so a missing prerequisite is a failure, not a skip)"
        ]
    )


def test_any_other_skip_fails_the_session_under_ci(session: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    session.makepyfile(SKIPS)
    result = run(session, monkeypatch, "true")
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*= skipped under CI =*",
            "SKIPPED *::test_skips_itself: the frobnicator is not installed",
            "SKIPPED *::test_marked_skip: not today",
            "CI: 2 tests skipped, but under CI only the Neo4j tests may skip; the session fails.*",
        ]
    )
    result.stdout.no_fnmatch_line("*test_known_bug:*")


def test_skips_are_allowed_outside_ci(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    session.makepyfile(SKIPS)
    result = run(session, monkeypatch, None)
    result.assert_outcomes(passed=1, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*skipped under CI*")


@pytest.mark.parametrize("ci", [None, "true"])
def test_neo4j_tests_may_skip_and_say_so(session: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                         ci: str | None) -> None:
    session.makepyfile(NEEDS_NEO4J)
    result = run(session, monkeypatch, ci)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(
        [
            "SKIPPED*Neo4j: no server (set NEO4J_URI and NEO4J_AUTH=user/password to run the Neo4j tests)",
            "Neo4j: 1 tests skipped (no server: set NEO4J_URI and NEO4J_AUTH=user/password)",
            "*1 passed, 1 skipped*",
        ]
    )
