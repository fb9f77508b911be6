"""``hybridkg ask``: several questions, one JSON line each, in order, stores and models loaded once; the text
form; the in-memory demo knowledge base without --store; a fresh --store refused with what to load.

The command runs in process through its own parser entry (``add_parser`` + ``cmd_ask`` with the CLI's common
options and settings), as ``hybridkg.server.cli`` wires it; the fuzzy route uses the real structural layer
(managed FalkorDB) with the hashing embedder, set through the environment like any deployment override.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hybridkg.errors import InvalidInput
from hybridkg.server import cli, cli_ask

ANSWER_KEYS = ["question", "route", "domain", "abstained", "reason", "answers", "sparql", "explanations", "evidence",
               "took_ms"]
QUESTIONS = [
    "Which drugs is Alice Moreno prescribed?",  # strict
    "How is Aoife Byrne related to the Vector add-on?",  # fuzzy
    "Which drug is best for Alice Moreno?",  # strict, abstains
    "Patients or companies?",  # ambiguous, abstains
]


@pytest.fixture(autouse=True)
def hashing_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYBRIDKG_STRUCTURAL__EMBEDDER__KIND", "hash")


def ask(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="hybridkg")
    cli_ask.add_parser(parser.add_subparsers(dest="command", required=True), cli._common)
    args = parser.parse_args(["ask", *argv])
    return cli_ask.cmd_ask(args, cli._settings(args))


def test_several_questions_give_one_json_line_each_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    assert ask("--json", "--top-k", "5", *QUESTIONS) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == len(QUESTIONS)
    answers = [json.loads(line) for line in lines]
    assert [a["question"] for a in answers] == QUESTIONS
    assert all(list(a) == ANSWER_KEYS for a in answers)
    assert [(a["route"], a["domain"], a["abstained"]) for a in answers] == [
        ("strict", "clinical", False), ("fuzzy", "crm", False), ("strict", "clinical", True), ("strict", None, True),
    ]
    assert answers[0]["answers"][0]["value"] == "https://hybridkg.dev/data/clinical/drug/warfarin-5mg"
    assert len(answers[1]["answers"]) <= 5
    assert answers[1]["evidence"]["chunks"]
    assert "demo knowledge base" in err, "the demo fallback is announced on stderr, never on stdout"
    assert err.count("demo document crm/") == 3, "the demo documents are ingested once for all questions"


def test_the_text_form_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert ask(QUESTIONS[0], QUESTIONS[2]) == 0
    out = capsys.readouterr().out
    assert f"Q: {QUESTIONS[0]}" in out
    assert "route: strict, clinical" in out
    assert "warfarin-5mg" in out
    assert "sparql: " in out
    assert f"Q: {QUESTIONS[2]}" in out
    assert "abstained: " in out


def test_strict_questions_alone_never_open_the_structural_layer(capsys: pytest.CaptureFixture[str]) -> None:
    assert ask("--json", QUESTIONS[0], QUESTIONS[2]) == 0
    assert "demo document" not in capsys.readouterr().err


def test_the_mode_and_domain_options_reach_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    assert ask("--json", "--domain", "crm", "--mode", "naive", QUESTIONS[0]) == 0
    a = json.loads(capsys.readouterr().out)
    assert (a["route"], a["domain"], a["evidence"]["mode"]) == ("fuzzy", "crm", "naive")
    with pytest.raises(InvalidInput, match="unknown mode"):
        ask("--mode", "sideways", QUESTIONS[0])
    with pytest.raises(Exception, match="unknown domain 'legal'"):
        ask("--domain", "legal", QUESTIONS[0])


def test_a_fresh_store_says_what_to_load(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="holds no domain's data yet") as caught:
        ask("--store", str(tmp_path / "kb"), QUESTIONS[0])
    assert f"hybridkg load --store {tmp_path / 'kb'} --domain clinical" in str(caught.value)


def test_a_loaded_store_is_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "kb"
    data = Path(cli.__file__).resolve().parent.parent / "ontology" / "clinical" / "data.ttl"
    exe = Path(sys.executable).parent / "hybridkg"
    subprocess.run([str(exe), "load", "--store", str(store), "--domain", "clinical", str(data)], check=True,
                   capture_output=True, timeout=300)
    assert ask("--store", str(store), "--json", QUESTIONS[0]) == 0
    a = json.loads(capsys.readouterr().out)
    assert (a["route"], a["domain"], a["abstained"]) == ("strict", "clinical", False)
    assert a["answers"][0]["value"] == "https://hybridkg.dev/data/clinical/drug/warfarin-5mg"
