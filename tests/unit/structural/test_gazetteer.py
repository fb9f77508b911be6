"""The gazetteer as it grows and shrinks: names added and removed in place, learned names (no IRI) kept apart."""

from __future__ import annotations

import statistics
import time

from hybridkg.structural.base import KnownEntity
from hybridkg.structural.extract.matcher import DELTA_MAX, MERGE_MIN, Gazetteer

ACME = KnownEntity("ex:acme", ("Acme Corporation", "Acme"), "Organization")


def names(gazetteer: Gazetteer, text: str) -> list[tuple[str, KnownEntity]]:
    return [(m.text, m.entity) for m in gazetteer.find(text)]


def test_added_names_are_found_and_removed_ones_are_not() -> None:
    gazetteer = Gazetteer([ACME])
    ledger = KnownEntity(None, ("Ledgerline",), "Product")
    text = "Acme bought Ledgerline."
    assert names(gazetteer, text) == [("Acme", ACME)]
    gazetteer.add([ledger])
    assert names(gazetteer, text) == [("Acme", ACME), ("Ledgerline", ledger)]
    gazetteer.remove([ACME])
    assert names(gazetteer, text) == [("Ledgerline", ledger)]
    gazetteer.remove([ledger])
    assert names(gazetteer, text) == []
    assert len(gazetteer) == 0


def test_learned_names_without_an_iri_are_distinct_entities() -> None:
    corvid = KnownEntity(None, ("Corvid Labs",), "Organization")
    halden = KnownEntity(None, ("Halden Foods",), "Organization")
    gazetteer = Gazetteer([corvid, halden])
    assert names(gazetteer, "Corvid Labs sells to Halden Foods") == [("Corvid Labs", corvid), ("Halden Foods", halden)]
    gazetteer.remove([corvid])
    assert names(gazetteer, "Corvid Labs sells to Halden Foods") == [("Halden Foods", halden)]
    gazetteer.add([halden, halden])  # an equal entity again is a no-op
    assert len(gazetteer) == 1


def test_a_curated_entity_beats_a_learned_one_for_the_same_label() -> None:
    learned = KnownEntity(None, ("Acme",), "concept")
    gazetteer = Gazetteer([learned])
    assert names(gazetteer, "ask Acme")[0][1] is learned
    gazetteer.add([KnownEntity("ex:acme-inc", ("Acme",), "Organization")])
    assert names(gazetteer, "ask Acme")[0][1].iri == "ex:acme-inc"
    gazetteer.remove([KnownEntity("ex:acme-inc", ("Acme",), "other type")])  # by IRI, over the labels given
    assert names(gazetteer, "ask Acme")[0][1] is learned


def test_changes_stay_correct_across_tier_merges() -> None:
    base = [KnownEntity(f"ex:{i}", (f"Base {i}",)) for i in range(50)]
    gazetteer = Gazetteer(base)
    added = [KnownEntity(None, (f"Added {i}",)) for i in range(MERGE_MIN + 2 * DELTA_MAX)]
    for i, entity in enumerate(added):
        gazetteer.add([entity])
        if i % 97 == 0:  # a find now and then, so the tiers are rebuilt and moved at different points
            assert names(gazetteer, f"Added {i} and Base 7") == [(f"Added {i}", entity), ("Base 7", base[7])]
    gazetteer.remove(base[:25])
    for i in (0, 24, 25, 49):
        expected = [] if i < 25 else [(f"Base {i}", base[i])]
        assert names(gazetteer, f"Base {i}") == expected
    assert names(gazetteer, f"Added {len(added) - 1}") == [(f"Added {len(added) - 1}", added[-1])]
    assert len(gazetteer) == 25 + len(added)


def test_adding_a_name_to_a_large_gazetteer_costs_milliseconds() -> None:
    known = [KnownEntity(None, (f"Company {i:06d} Holdings",), "Organization") for i in range(100_000)]
    start = time.perf_counter()
    gazetteer = Gazetteer(known)
    build = time.perf_counter() - start
    text = "Zebulon Labs 0 met Company 000042 Holdings."
    timings = []
    for j in range(50):
        start = time.perf_counter()
        gazetteer.add([KnownEntity(None, (f"Zebulon Labs {j}",), "Organization")])
        found = gazetteer.find(text)
        timings.append(time.perf_counter() - start)
    assert [m.text for m in found] == ["Zebulon Labs 0", "Company 000042 Holdings"]
    # a full rebuild of 100k labels takes seconds here; one added name and a find must not pay for it
    assert statistics.median(timings) < min(build / 50, 0.02), (build, statistics.median(timings))
