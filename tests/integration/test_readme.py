"""The README's Python tour runs as written and imports only the layers' public surfaces."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PUBLIC = {
    "hybridkg.semantic", "hybridkg.structural", "hybridkg.server", "hybridkg.bridge", "hybridkg.errors",
    "hybridkg.client",
}


def _python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_imports_only_public_names() -> None:
    blocks = _python_blocks()
    assert blocks, "the README has no Python example"
    for block in blocks:
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("hybridkg"):
                assert node.module in PUBLIC, f"README imports {node.module}, not a layer's public surface"
                module = __import__(node.module, fromlist=["__all__"])
                for alias in node.names:
                    assert alias.name in module.__all__, f"{alias.name} is not in {node.module}.__all__"


def test_readme_python_tour_runs(tmp_path: Path) -> None:
    block = next(b for b in _python_blocks() if "open_knowledge_base" in b)
    code = block.replace('Path("/tmp/hybridkg-tour")', f"Path({str(tmp_path / 'tour')!r})")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "https://hybridkg.dev/data/clinical/patient/" in out.stdout
    assert "Helios" in out.stdout


def test_readme_client_example_runs_against_a_served_knowledge_base(tmp_path: Path) -> None:
    from hybridkg.semantic import StoreBackend
    from hybridkg.server import load_settings
    from hybridkg.server.runtime import Runtime
    from hybridkg.server.serve import BackgroundService

    block = next(b for b in _python_blocks() if "hybridkg.client" in b)
    settings = load_settings(environ={})
    settings.store.backend = StoreBackend.MEMORY
    settings.structural.path = tmp_path / "structural"  # the bridge graph's FalkorDB (the example's Cypher)
    runtime = Runtime(settings)
    try:
        runtime.kb.ensure_domain("clinical", with_demo_data=True)
        with BackgroundService(runtime) as service:
            code = block.replace('"127.0.0.1:50051"', repr(service.endpoints.grpc))
            out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300)
    finally:
        runtime.close()
    assert out.returncode == 0, out.stderr
    assert "https://hybridkg.dev/data/clinical/patient/" in out.stdout
    assert "strict" in out.stdout
    assert "Northshore" in out.stdout or "Brigid" in out.stdout
    assert "('uri', 'p')" in out.stdout  # Cypher rows: nodes as JSON objects
    assert "'Patient'" in out.stdout
    assert "MATCH" in out.stdout  # the SPARQL's Cypher translation
