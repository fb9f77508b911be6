"""A process killed between the graph write and the vector save loses nothing: the store reconciles on open.

Each test runs a real child process on the embedded FalkorDB that kills itself (SIGKILL, no cleanup) right
after the graph write of a document add or delete, then reopens the store here.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from hybridkg.structural.base import ENTITY, RELATED
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.settings import StructuralConfig

DOCS = {
    "ridge.txt": "Tessel Freight moved its billing to Ledgerbeam in March. Its finance director, Ilse Varga, "
    "signed the contract. Tessel Freight is headquartered in Graz.",
    "quarry.txt": "Quarry Analytics hired Noor Haldane from Tessel Freight. Noor Haldane leads the data team "
    "at Quarry Analytics in Porto.",
}
UPDATE = ("Quarry Analytics hired Noor Haldane from Tessel Freight. Quarry Analytics is a robotics supplier in "
          "Porto, and Tessel Freight is its largest customer.")
CONFIG = {"embedder": {"kind": "hash"}, "vectors": {"backend": "exact"}, "graph": {"backend": "falkordb"}}

CHILD = """
import os, signal, sys
from pathlib import Path
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.settings import StructuralConfig
from hybridkg.structural.texts import entity_text

config = StructuralConfig.model_validate({config!r})
kb = open_structural_kb(config, Path(sys.argv[1]))
docs = {docs!r}
if sys.argv[2] in ("delete", "update"):
    kb.add_documents(list(docs.items()), domain="crm")
    kb.close()
    kb = open_structural_kb(config, Path(sys.argv[1]))
kb.writer.after_graph = lambda: os.kill(os.getpid(), signal.SIGKILL)
if sys.argv[2] == "delete":
    kb.delete_document("quarry.txt")
elif sys.argv[2] == "update":
    kb.update_document("quarry.txt", {update!r}, domain="crm")
else:
    kb.add_documents(list(docs.items()), domain="crm")
print("not killed")
"""


def _crash(path: Path, action: str) -> None:
    code = textwrap.dedent(CHILD.format(config=CONFIG, docs=DOCS, update=UPDATE))
    proc = subprocess.run([sys.executable, "-c", code, str(path), action], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == -9, f"the child was not killed: {proc.returncode}\n{proc.stdout}\n{proc.stderr}"


def _open(path: Path) -> StructuralKB:
    return open_structural_kb(StructuralConfig.model_validate(CONFIG), path)


def _graph_ids(kb: StructuralKB) -> tuple[set[str], set[str], set[str]]:
    ents = {r["id"] for r in kb.graph.query("MATCH (n:Entity) RETURN n.id AS id")}
    rels = {r["id"] for r in kb.graph.query("MATCH ()-[r:RELATED]->() WHERE r.type <> 'co_occurs' RETURN r.id AS id")}
    chunks = {r["id"] for r in kb.graph.query("MATCH (n:Chunk) RETURN n.id AS id")}
    return ents, rels, chunks


def _assert_in_step(kb: StructuralKB) -> None:
    ents, rels, chunks = _graph_ids(kb)
    assert set(kb.vectors.entities.ids()) == ents
    assert set(kb.vectors.relations.ids()) == rels
    assert set(kb.vectors.chunks.ids()) == chunks


def test_killed_after_the_graph_write_of_an_add(tmp_path: Path) -> None:
    path = tmp_path / "s"
    _crash(path, "add")
    with _open(path) as kb:
        ents, rels, chunks = _graph_ids(kb)
        assert len(chunks) == 2, "the graph write happened before the kill"
        assert ents
        assert rels
        _assert_in_step(kb)  # reconciled on open: every element has its vector again
        changes = kb.add_documents(list(DOCS.items()), domain="crm")
        assert [c.action for c in changes] == ["unchanged", "unchanged"]
        names = {n.props["name"] for n in kb.graph.neighbourhood(ENTITY, sorted(ents), depth=0).nodes.values()}
        assert {"Tessel Freight", "Noor Haldane", "Quarry Analytics"} <= names
        for name in ("Tessel Freight", "Noor Haldane"):
            found = kb.retrieve(name, mode="local", top_k=5)
            assert name in [i.name for i in found.items], (name, [i.name for i in found.items])
    with _open(path) as kb:  # and it stays so across a clean restart
        _assert_in_step(kb)


def test_killed_after_the_graph_write_of_a_delete(tmp_path: Path) -> None:
    path = tmp_path / "s"
    _crash(path, "delete")
    with _open(path) as kb:
        ents, _, chunks = _graph_ids(kb)
        assert len(chunks) == 1, "the deletion reached the graph"
        _assert_in_step(kb)  # vectors of the deleted chunk and its orphaned entities are gone
        names = {n.props["name"] for n in kb.graph.neighbourhood(ENTITY, sorted(ents), depth=0).nodes.values()}
        assert "Quarry Analytics" not in names
        hits = kb.vectors.entities.search(kb.embedder.embed(["Quarry Analytics"])[0], 50)
        assert all(h.id in ents for h in hits)
        edges = kb.graph.neighbourhood(ENTITY, sorted(ents), depth=1, rel_types=[RELATED]).edges
        assert all(e.src in ents and e.dst in ents for e in edges)


def test_killed_after_the_graph_write_of_an_update_leaves_no_stale_vector(tmp_path: Path) -> None:
    path = tmp_path / "s"
    _crash(path, "update")
    assert (path / "write-journal.json").exists(), "the write was journaled before the graph write"
    with _open(path) as kb:
        assert not (path / "write-journal.json").exists()
        _assert_in_step(kb)
        ents, _, _ = _graph_ids(kb)
        nodes = kb.graph.neighbourhood(ENTITY, sorted(ents), depth=0).nodes
        quarry = next(n for n in nodes.values() if n.props["name"] == "Quarry Analytics")
        assert "robotics supplier" in quarry.props["description"], "the update reached the graph"
        found, matrix = kb.vectors.entities.get([quarry.id])
        _, [recipe] = kb.writer._recipes_of("entities", [quarry.id])
        pieces = [*recipe.texts, *(sp.context[sp.start : sp.end] for sp in recipe.spans)]
        assert any("robotics supplier" in p for p in pieces), "the recipe is of the updated entity"
        want = kb.writer.vectors_of([recipe])[0][0]
        assert found == [quarry.id]
        assert float(matrix[0] @ want) > 0.999, "the entity's vector is of its new text, not the old one"
