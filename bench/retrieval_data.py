"""Graphs and queries for the retrieval benchmark: a synthetic power-law graph and MetaQA's movie KB.

Both come out as the same plain records (:class:`Entity`, :class:`Relation`) so hybridkg and LightRAG are
fed the identical graph: names unique under hybridkg's entity key, no self-loops, at most one relation per
unordered pair (LightRAG keeps one edge per pair; repeated pairs are merged here, their types kept as
keywords).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Entity:
    name: str
    type: str
    description: str


@dataclass(frozen=True, slots=True)
class Relation:
    src: str
    dst: str
    type: str
    keywords: tuple[str, ...]
    description: str
    weight: float = 1.0


@dataclass(slots=True)
class Dataset:
    name: str
    entities: list[Entity]
    relations: list[Relation]
    queries: list[str]  # timed
    warmup: list[str] = field(default_factory=list)  # run first, not timed
    notes: list[str] = field(default_factory=list)


@lru_cache(maxsize=1 << 18)
def name_key(name: str) -> str:
    """hybridkg's entity key (case, spacing, a leading article, the plural of a lowercase name): names sharing it
    are one entity there, so they are merged here for both systems."""
    from hybridkg.structural.resolution import normalise_name

    return normalise_name(name)


def lightrag_drops(name: str) -> bool:
    """Names LightRAG 1.5.7's entity-name normalisation turns into "" (and then refuses): digits only and
    shorter than 3, or digits and dots with a dot and shorter than 6 (MetaQA films "21", "9", ".45")."""
    n = name.strip()
    return (len(n) < 3 and n.isdigit()) or (len(n) < 6 and "." in n and all(c.isdigit() or c == "." for c in n))


def merge_pairs(relations: Iterable[Relation]) -> tuple[list[Relation], int]:
    """One relation per unordered pair, self-loops dropped; returns the relations and how many were merged."""
    by_pair: dict[tuple[str, str], Relation] = {}
    merged = 0
    for r in relations:
        a, b = name_key(r.src), name_key(r.dst)
        if a == b:
            merged += 1
            continue
        key = (a, b) if a < b else (b, a)
        prior = by_pair.get(key)
        if prior is None:
            by_pair[key] = r
            continue
        merged += 1
        kws = tuple(dict.fromkeys((*prior.keywords, r.type, *r.keywords)))
        by_pair[key] = Relation(prior.src, prior.dst, prior.type, kws, f"{prior.description} {r.description}",
                                prior.weight + r.weight)
    return list(by_pair.values()), merged


# --------------------------------------------------------------------------------------------- synthetic

_ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "pr", "r", "s",
           "sh", "st", "t", "tr", "v", "w", "z"]
_VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "", "n", "r", "l", "s", "th", "m", "x", "nd", "rk"]
_TOPICS = (
    "solar storage", "river ecology", "protein folding", "urban transit", "grain logistics", "coastal erosion",
    "quantum sensing", "textile recycling", "public health", "battery chemistry", "wind forecasting",
    "soil microbes", "satellite imaging", "medieval trade", "glacier melt", "language models", "water rights",
    "rail signalling", "coral restoration", "cheese making", "vaccine supply", "wildfire smoke", "ship design",
    "tax policy", "bird migration", "printed circuits", "opera staging", "fraud detection", "crop genetics",
    "deep sea mining", "heat pumps", "folk music", "antibiotic resistance", "road safety", "timber framing",
    "cloud storage", "pension reform", "seismic safety", "dairy farming", "graph databases",
)
_ROLES = ("engineer", "researcher", "historian", "architect", "economist", "biologist", "journalist", "designer",
          "chemist", "surveyor", "physician", "composer")
_ADJ = ("small", "regional", "independent", "state-funded", "fast-growing", "century-old", "nonprofit",
        "cooperative", "family-owned", "international")
_TYPES: dict[str, tuple[str, ...]] = {  # type -> description templates
    "person": ("{name} is a {role} from {place} who works on {topic}.",
               "{name}, a {role} born in {place}, is known for work on {topic}."),
    "organization": ("{name} is a {adj} {kind} headquartered in {place}, focused on {topic}.",),
    "location": ("{name} is a {kind} near {place}, known for {topic}.",),
    "product": ("{name} is a {kind} for {topic}, first made in {place}.",),
    "technology": ("{name} is a {kind} used in {topic}.",),
    "event": ("{name} is a {adj} {kind} on {topic} held in {place}.",),
    "project": ("{name} is a {adj} {kind} studying {topic} around {place}.",),
    "publication": ("{name} is a {kind} covering {topic}, published in {place}.",),
    "species": ("{name} is a {kind} found near {place}, studied for {topic}.",),
    "concept": ("{name} is a {kind} in {topic}.",),
}
_KINDS = {
    "organization": ("company", "institute", "foundation", "agency", "laboratory", "union"),
    "location": ("town", "valley", "harbour", "district", "island", "plateau"),
    "product": ("device", "toolkit", "vehicle", "instrument", "material"),
    "technology": ("method", "protocol", "algorithm", "process", "standard"),
    "event": ("conference", "festival", "summit", "expedition", "trial"),
    "project": ("programme", "study", "initiative", "survey"),
    "publication": ("journal", "newsletter", "handbook", "report series"),
    "species": ("beetle", "orchid", "songbird", "fern", "freshwater fish"),
    "concept": ("principle", "theory", "model", "metric"),
}
_SUFFIX = {"organization": ("Labs", "Institute", "Group", "Works", "Trust"), "event": ("Summit", "Forum"),
           "project": ("Initiative", "Programme"), "publication": ("Review", "Journal")}
_TYPE_WEIGHTS = {"person": 30, "organization": 14, "location": 12, "product": 9, "technology": 8, "event": 6,
                 "project": 7, "publication": 5, "species": 5, "concept": 4}
# (source type, target type) -> relation type; anything else falls back by target type, then to related_to
_REL_BY_PAIR = {("person", "organization"): "works_for", ("person", "person"): "collaborates_with",
                ("person", "project"): "leads", ("person", "publication"): "wrote_for",
                ("organization", "product"): "develops", ("organization", "technology"): "develops",
                ("organization", "organization"): "partners_with", ("project", "organization"): "funded_by",
                ("event", "organization"): "organised_by", ("species", "location"): "native_to"}
_REL_BY_TARGET = {"location": "located_in", "technology": "uses", "concept": "applies", "event": "attended",
                  "publication": "featured_in", "person": "associated_with", "project": "part_of"}
_RELS: dict[str, tuple[tuple[str, ...], str]] = {  # type -> (keywords, description template)
    "works_for": (("employment", "staff"), "{src} works for {dst} as a {role} on {topic}."),
    "collaborates_with": (("collaboration", "co-author"), "{src} and {dst} collaborate on {topic}."),
    "leads": (("leadership", "principal investigator"), "{src} leads {dst}, a study of {topic}."),
    "wrote_for": (("authorship", "article"), "{src} wrote about {topic} for {dst}."),
    "develops": (("development", "product line"), "{src} develops {dst} for {topic}."),
    "partners_with": (("partnership", "joint venture"), "{src} partners with {dst} on {topic}."),
    "funded_by": (("funding", "grant"), "{src} is funded by {dst} to study {topic}."),
    "organised_by": (("organiser", "host"), "{src} is organised by {dst}."),
    "native_to": (("habitat", "native range"), "{src} is native to {dst}."),
    "located_in": (("location", "based in"), "{src} is located in {dst}."),
    "uses": (("usage", "adopts"), "{src} uses {dst} for {topic}."),
    "applies": (("application", "theory"), "{src} applies {dst} to {topic}."),
    "attended": (("participation", "attendance"), "{src} took part in {dst}."),
    "featured_in": (("coverage", "press"), "{src} was featured in {dst} for work on {topic}."),
    "associated_with": (("association", "contact"), "{src} is associated with {dst} through {topic}."),
    "part_of": (("membership", "component"), "{src} is part of {dst}."),
    "related_to": (("related", "link"), "{src} is related to {dst} via {topic}."),
}


def _words(rng: random.Random, n: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        w = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.choice((2, 2, 3))))
        w = (w + rng.choice(_CODAS)).capitalize()
        if w.lower() not in seen and len(w) >= 4:
            seen.add(w.lower())
            out.append(w)
    return out


def _name(rng: random.Random, vocab: list[str], typ: str, taken: set[str]) -> str:
    while True:
        n = rng.choice((1, 2, 2, 2, 3)) if typ != "person" else 2
        name = " ".join(rng.choice(vocab) for _ in range(n))
        if typ in _SUFFIX and rng.random() < 0.5:
            name = f"{name} {rng.choice(_SUFFIX[typ])}"
        if name_key(name) not in taken:
            taken.add(name_key(name))
            return name


def synthetic(n_entities: int, *, degree: int = 3, n_queries: int = 200, n_warmup: int = 20,
              seed: int = 7) -> Dataset:
    """``n_entities`` typed entities and ~``degree * n_entities`` relations by preferential attachment."""
    rng = random.Random(seed)
    vocab = _words(rng, max(2_000, n_entities // 10))
    places = vocab[: len(vocab) // 4]
    types = list(_TYPE_WEIGHTS)
    weights = list(_TYPE_WEIGHTS.values())
    taken: set[str] = set()
    entities: list[Entity] = []
    topics: list[str] = []
    for _ in range(n_entities):
        typ = rng.choices(types, weights)[0]
        name = _name(rng, vocab, typ, taken)
        topic = rng.choice(_TOPICS)
        desc = rng.choice(_TYPES[typ]).format(
            name=name, role=rng.choice(_ROLES), place=rng.choice(places), topic=topic, adj=rng.choice(_ADJ),
            kind=rng.choice(_KINDS.get(typ, ("thing",))))
        entities.append(Entity(name, typ, desc))
        topics.append(topic)
    relations: list[Relation] = []
    pool: list[int] = []  # node i appears once per incident edge: sampling from it is degree-proportional
    m0 = degree + 1
    pairs = [(i, j) for i in range(min(m0, n_entities)) for j in range(i)]
    for i in range(m0, n_entities):
        targets: set[int] = set()
        while len(targets) < degree:
            targets.add(rng.choice(pool) if pool and rng.random() < 0.9 else rng.randrange(i))
        pairs.extend((i, j) for j in sorted(targets))
        pool.extend(targets)
        pool.extend([i] * degree)
    for i, j in pairs:
        s, d = entities[i], entities[j]
        rtype = _REL_BY_PAIR.get((s.type, d.type)) or _REL_BY_TARGET.get(d.type, "related_to")
        kws, template = _RELS[rtype]
        desc = template.format(src=s.name, dst=d.name, role=rng.choice(_ROLES), topic=topics[i])
        relations.append(Relation(s.name, d.name, rtype, kws, desc))
    queries = _synthetic_queries(rng, entities, relations, topics, n_queries + n_warmup)
    return Dataset(f"synthetic-{n_entities}", entities, relations, queries[n_warmup:], queries[:n_warmup],
                   [f"synthetic graph, seed {seed}, preferential attachment with {degree} edges per new entity"])


def _synthetic_queries(rng: random.Random, entities: list[Entity], relations: list[Relation], topics: list[str],
                       n: int) -> list[str]:
    """``n`` distinct queries: a repeat would reach its timed run with the answer of its first run memoised."""
    out: dict[str, None] = {}
    while len(out) < n:
        kind = rng.random()
        if kind < 0.35:
            q = rng.choice(entities).name
        elif kind < 0.6:
            i = rng.randrange(len(entities))
            e = entities[i]
            q = (f"which {e.type} works on {topics[i]}" if e.type != "person" else
                 f"who is the expert on {topics[i]} named {e.name.split()[-1]}")
        elif kind < 0.8:
            r = rng.choice(relations)
            q = f"how is {r.src} related to {r.dst}"
        else:
            r = rng.choice(relations)
            q = f"what {r.type.replace('_', ' ')} {r.dst}"
        out.setdefault(q)
    return list(out)


# --------------------------------------------------------------------------------------------- MetaQA

_METAQA_TAIL_TYPE = {"directed_by": "person", "written_by": "person", "starred_actors": "person",
                     "release_year": "year", "in_language": "language", "has_tags": "tag", "has_genre": "genre",
                     "has_imdb_rating": "rating", "has_imdb_votes": "popularity"}
_METAQA_PHRASE = {"directed_by": "was directed by", "written_by": "was written by", "starred_actors": "stars",
                  "release_year": "was released in", "in_language": "is in", "has_tags": "is tagged",
                  "has_genre": "has the genre", "has_imdb_rating": "has an IMDb rating of",
                  "has_imdb_votes": "has IMDb votes:"}
_METAQA_ROLE = {"directed_by": "director", "written_by": "writer", "starred_actors": "actor"}


def metaqa(kb: Path, *, n_queries: int = 200, n_warmup: int = 20, seed: int = 7) -> Dataset:
    """MetaQA's KB (``head|relation|tail`` lines) as a property graph; queries are MetaQA's 1-/2-hop test
    questions (brackets removed)."""
    triples: list[tuple[str, str, str]] = []
    for line in kb.read_text(encoding="utf-8").splitlines():
        parts = line.split("|")
        if len(parts) == 3 and all(p.strip() for p in parts):
            triples.append((parts[0].strip(), parts[1].strip(), parts[2].strip()))
    canonical: dict[str, str] = {}  # name key -> first spelling seen
    types: dict[str, str] = {}
    facts: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    roles: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for h, r, t in triples:
        h = canonical.setdefault(name_key(h), h)
        t = canonical.setdefault(name_key(t), t)
        types[h] = "movie"
        types.setdefault(t, _METAQA_TAIL_TYPE.get(r, "concept"))
        facts[h][r].append(t)
        if r in _METAQA_ROLE:
            roles[t][_METAQA_ROLE[r]].append(h)
    dropped = {n for n in types if lightrag_drops(n)}
    entities = [Entity(n, typ, _metaqa_description(n, typ, facts.get(n), roles.get(n)))
                for n, typ in types.items() if n not in dropped]
    raw = [Relation(h, t, r, (r.replace("_", " "),), f"{h} {_METAQA_PHRASE.get(r, r)} {t}.")
           for h, r, t in ((canonical[name_key(h)], r, canonical[name_key(t)]) for h, r, t in triples)
           if h not in dropped and t not in dropped]
    relations, merged = merge_pairs(raw)
    rng = random.Random(seed)
    questions: list[str] = []
    for hop in ("1-hop", "2-hop"):
        qa = kb.parent / hop / "qa_test.txt"
        if qa.exists():
            lines = qa.read_text(encoding="utf-8").splitlines()
            questions += [ln.split("\t")[0].replace("[", "").replace("]", "") for ln in rng.sample(lines, n_queries)]
    if not questions:
        questions = [e.name for e in rng.sample(entities, min(len(entities), n_queries + n_warmup))]
    questions = list(dict.fromkeys(questions))  # distinct: a repeat would run warm (1-hop and 2-hop share a few)
    rng.shuffle(questions)
    questions = questions[: n_queries + n_warmup]
    return Dataset("metaqa", entities, relations, questions[n_warmup:], questions[:n_warmup],
                   [f"MetaQA KB {kb}: {len(triples)} triples; {merged} repeated (head, tail) pairs merged into one "
                    "relation each (their relation types kept as keywords); names hybridkg resolves to one entity "
                    "('Final Destination' / 'The Final Destination', 'The Bridge' / tag 'bridge') merged on both "
                    "sides; "
                    f"{len(dropped)} numeric titles LightRAG cannot name (e.g. '21') left out on both sides"])


def _metaqa_description(name: str, typ: str, facts: dict[str, list[str]] | None,
                        roles: dict[str, list[str]] | None) -> str:
    if typ == "movie" and facts:
        parts = [name, "is a"]
        parts += facts.get("release_year", [])[:1]
        parts += facts.get("in_language", [])[:1]
        parts += [g.lower() for g in facts.get("has_genre", [])[:2]]
        parts.append("film")
        if facts.get("directed_by"):
            parts.append("directed by " + " and ".join(facts["directed_by"][:2]))
        if facts.get("starred_actors"):
            parts.append("starring " + ", ".join(facts["starred_actors"][:2]))
        return " ".join(parts) + "."
    if roles:
        jobs = " and ".join(sorted(roles))
        films = [f for fs in roles.values() for f in fs][:2]
        return f"{name} is a film {jobs} known for {', '.join(films)}."
    return f"{name} is a {typ} used to describe films."
