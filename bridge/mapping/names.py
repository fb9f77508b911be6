"""The name registry: which label, relationship type or property key names which IRI, both ways.

``docs/bridge.md`` §1.3. A class or predicate is named by its IRI's local name (after the last ``#``, ``/`` or
``:``, with characters outside ``[A-Za-z0-9_]`` replaced by ``_``) when no other IRI of the mapped data has the
same local name, else ``prefix__local`` with the prefix the namespaces give (one is invented, ``ns1``, ``ns2``,
..., for a namespace without one); a name still taken gets ``_2``, ``_3``, .... A name denotes one IRI in all
three namespaces (labels, relationship types, property keys), so :meth:`NameRegistry.iri` needs no kind; an IRI
that is both a relationship type and a property key (a predicate with IRI and literal objects) has the same name
in both. Names once given never change: IRIs added later whose local name is taken get the prefixed form.
:data:`RESERVED` names are never given to an IRI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from hybridkg.bridge.base import BNODE, RESOURCE, URI

#: The label of the one node that stores the registry in the property graph (see ``store.py``).
REGISTRY_LABEL = "_BridgeNames"
RESERVED = frozenset({RESOURCE, REGISTRY_LABEL, URI, BNODE})

WELL_KNOWN = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "sh": "http://www.w3.org/ns/shacl#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "dc": "http://purl.org/dc/elements/1.1/",
    "dcterms": "http://purl.org/dc/terms/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "schema": "https://schema.org/",
}

_INVALID = re.compile(r"[^A-Za-z0-9_]")
_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class NameKind(StrEnum):
    LABEL = "label"
    TYPE = "type"
    KEY = "key"


@dataclass(frozen=True, slots=True)
class RegistryRecord:
    """The registry as parallel lists of plain values, for storage as node properties."""

    names: list[str]
    iris: list[str]
    kinds: list[str]  # per name: its kinds joined by ","
    prefixes: list[str]
    namespaces: list[str]


def split_iri(iri: str) -> tuple[str, str]:
    """``(namespace, local name)``: the local name follows the last ``#``, else ``/``, else ``:``."""
    for sep in ("#", "/", ":"):
        cut = iri.rfind(sep)
        if cut >= 0:
            return iri[: cut + 1], iri[cut + 1 :]
    return "", iri


def _clean(local: str) -> str:
    name = _INVALID.sub("_", local)
    return "_" + name if not name or name[0].isdigit() else name


class NameRegistry:
    """Names of the classes and predicates of one mapped graph (reversible; see the module docstring)."""

    def __init__(self, namespaces: Mapping[str, str] | None = None) -> None:
        self._prefix_of: dict[str, str] = {}  # namespace -> prefix
        for prefix, ns in {**WELL_KNOWN, **(namespaces or {})}.items():
            if _PREFIX.match(prefix):
                self._prefix_of[ns] = prefix
        self._iri_of: dict[str, str] = {}  # name -> iri
        self._name_of: dict[str, str] = {}  # iri -> name
        self._kinds: dict[NameKind, set[str]] = {k: set() for k in NameKind}  # kind -> iris

    # ------------------------------------------------------------------------------------------ lookups

    def name(self, kind: NameKind, iri: str) -> str | None:
        """The name of ``iri`` as a ``kind``; ``None`` when the mapped data has no such ``kind`` of it."""
        return self._name_of.get(iri) if iri in self._kinds[kind] else None

    def iri(self, name: str) -> str | None:
        return self._iri_of.get(name)

    def kinds(self, name: str) -> set[NameKind]:
        iri = self._iri_of.get(name)
        return set() if iri is None else {k for k, iris in self._kinds.items() if iri in iris}

    def items(self, kind: NameKind) -> dict[str, str]:
        """``name -> IRI`` of every ``kind`` name."""
        return {self._name_of[i]: i for i in self._kinds[kind]}

    @property
    def prefixes(self) -> dict[str, str]:
        """``prefix -> namespace``, the domain's and the invented ones."""
        return {p: ns for ns, p in self._prefix_of.items()}

    # ------------------------------------------------------------------------------------------ naming

    def add(self, entries: Iterable[tuple[NameKind, str]]) -> None:
        """Name every IRI of ``entries`` (``(kind, IRI)`` pairs) not named yet, all at once (so that a local name
        shared by two new IRIs is prefixed for both), and record their kinds."""
        new: dict[str, list[str]] = {}
        for kind, iri in entries:
            self._kinds[kind].add(iri)
            if iri not in self._name_of:
                group = new.setdefault(_clean(split_iri(iri)[1]), [])
                if iri not in group:
                    group.append(iri)
        for local in sorted(new):
            iris = sorted(new[local])
            bare = len(iris) == 1 and local not in self._iri_of and local not in RESERVED
            for iri in iris:
                self._bind(local if bare else self._free(f"{self._prefix(iri)}__{local}"), iri)

    def _bind(self, name: str, iri: str) -> None:
        self._iri_of[name] = iri
        self._name_of[iri] = name

    def _free(self, name: str) -> str:
        if name not in self._iri_of and name not in RESERVED:
            return name
        n = 2
        while f"{name}_{n}" in self._iri_of:
            n += 1
        return f"{name}_{n}"

    def _prefix(self, iri: str) -> str:
        ns = split_iri(iri)[0]
        if ns not in self._prefix_of:
            taken = set(self._prefix_of.values())
            n = 1
            while f"ns{n}" in taken:
                n += 1
            self._prefix_of[ns] = f"ns{n}"
        return self._prefix_of[ns]

    # ------------------------------------------------------------------------------------------ storage

    def record(self) -> RegistryRecord:
        names = sorted(self._iri_of)
        return RegistryRecord(
            names=names,
            iris=[self._iri_of[n] for n in names],
            kinds=[",".join(sorted(k.value for k in self.kinds(n))) for n in names],
            prefixes=list(self._prefix_of.values()),
            namespaces=list(self._prefix_of),
        )

    @classmethod
    def from_record(cls, record: RegistryRecord) -> NameRegistry:
        reg = cls()
        reg._prefix_of = dict(zip(record.namespaces, record.prefixes, strict=True))
        for name, iri, kinds in zip(record.names, record.iris, record.kinds, strict=True):
            reg._bind(name, iri)
            for kind in filter(None, kinds.split(",")):
                reg._kinds[NameKind(kind)].add(iri)
        return reg
