"""`hybridkg docs|retrieve|feedback` through the installed executable, on the embedded FalkorDB."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOC = """# Helios pilot

Helios Solar Iberia runs a vector search pilot with the Vector add-on. Inês Carvalho leads the pilot.
Maya Ito owns the Helios Solar account and meets Inês Carvalho every month.
"""
DOC2 = """Bramble Logistics renewal

Sam Olsen manages Bramble Logistics. Bramble Logistics pushed back on the Gold support plan price.
"""


def hybridkg(*args: str | Path, check: bool = True, env: dict[str, str] | None = None,
             cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})}, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


HASH = {"HYBRIDKG_STRUCTURAL__EMBEDDER__KIND": "hash"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    (tmp_path / "helios.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "bramble.txt").write_text(DOC2, encoding="utf-8")
    return tmp_path / "store"


def test_docs_retrieve_feedback_round_trip(store: Path) -> None:
    folder = store.parent
    out = hybridkg("docs", "add", "--store", store, "--domain", "crm", "--json", "helios.md", "bramble.txt",
                   env=HASH, cwd=folder)
    summary = json.loads(out.stdout)
    assert [d["doc_id"] for d in summary["documents"]] == ["helios.md", "bramble.txt"]
    assert all(d["action"] == "added" and d["chunks_added"] >= 1 for d in summary["documents"])

    res = json.loads(hybridkg("retrieve", "--store", store, "--mode", "local", "--top-k", "3",
                              "Who leads the Helios pilot?", env=HASH).stdout)
    assert set(res) >= {"mode", "items", "relations", "chunks", "took_ms"}
    assert res["mode"] == "local"
    assert 0 < len(res["items"]) <= 3
    assert set(res["items"][0]) >= {"id", "name", "score", "alpha", "beta"}
    assert all(set(c) >= {"id", "doc", "text"} for c in res["chunks"])

    node = res["items"][0]["id"]
    fb = json.loads(hybridkg("feedback", "--store", store, f"{node}=0.5", env=HASH).stdout)
    assert fb["epoch"] == 1

    again = json.loads(hybridkg("docs", "add", "--store", store, "--domain", "crm", "--json", "helios.md",
                                env=HASH, cwd=folder).stdout)
    assert again["documents"][0]["action"] == "unchanged"
    gone = json.loads(hybridkg("docs", "delete", "--store", store, "--domain", "crm", "--json", "helios.md",
                               env=HASH, cwd=folder).stdout)
    assert gone["documents"][0]["action"] == "deleted"


def test_docs_add_takes_a_directory_in_batches(store: Path) -> None:
    folder = store.parent / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "helios.md").write_text(DOC, encoding="utf-8")
    (folder / "sub" / "bramble.txt").write_text(DOC2, encoding="utf-8")
    (folder / "sub" / "third.html").write_text("<p>Nova Labs designs the Heron Gripper.</p>", encoding="utf-8")
    (folder / "logo.png").write_bytes(b"\x89PNG\r\n")
    (folder / ".hidden.txt").write_text("Secret Corp.", encoding="utf-8")
    out = hybridkg("docs", "add", "--store", store, "--domain", "crm", "--json", "--batch", "2", "notes",
                   env=HASH, cwd=store.parent)
    docs = json.loads(out.stdout)["documents"]
    assert [d["doc_id"] for d in docs] == ["notes/helios.md", "notes/sub/bramble.txt", "notes/sub/third.html"]
    assert all(d["action"] == "added" and d["chunks_added"] >= 1 for d in docs)
    res = json.loads(hybridkg("retrieve", "--store", store, "--mode", "local", "Heron Gripper", env=HASH).stdout)
    assert any(c["doc"] == "notes/sub/third.html" for c in res["chunks"])
    empty = store.parent / "empty"
    empty.mkdir()
    proc = hybridkg("docs", "add", "--store", store, "--domain", "crm", "empty", check=False, env=HASH,
                    cwd=store.parent)
    assert proc.returncode == 2
    assert "no text, Markdown or HTML file" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("retrieve", "--mode", "sideways", "q"), "unknown mode 'sideways'"),
        (("retrieve", "--top-k", "-3", "q"), "--top-k must be a positive number"),
        (("feedback", "ent:crm:nobody=0.5"), "ent:crm:nobody"),
        (("feedback", "nonsense"), "NODE_ID=SCORE"),
        (("docs", "add", "--domain", "nope", "x.txt"), "nope"),
    ],
)
def test_bad_input_exits_2_with_a_message(store: Path, args: tuple[str, ...], message: str) -> None:
    proc = hybridkg(*args[:1], "--store", store, *args[1:], check=False, env=HASH)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
