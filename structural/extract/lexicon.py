"""Word lists and word-shape rules behind the offline extractor's light part-of-speech guesses.

No tagger model ships with hybridkg, so :mod:`.offline` tells nouns from verbs with closed-class word lists
(stopwords, determiners, auxiliaries), a list of common relation verbs with their regular and irregular
inflections, and suffixes. Small on purpose: every list here is read by a person, not learnt.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


DETERMINERS = _words(
    "a an the this that these those its their his her our your my some any many much several few each every "
    "no all both either neither such another other what which whose one two three four five"
)
AUXILIARIES = _words(
    "is are was were be been being am has have had having do does did will would shall should can could may "
    "might must"
)
COPULAS = _words("is are was were be been being am seems seem seemed becomes become became remains remain stays")
NEGATIONS = _words("not never no cannot n't")
PRONOUNS = _words("i you he she it we they me him us them who which that what this these those")
#: The open-class words among the stopwords (light verbs, ordinals, "new"): the extractor skips them, but in a
#: question they say something ("Who makes Ledgerline?", "the first customer"; structural/retrieval/answers.py).
OPEN_CLASS = _words(
    "make makes made take takes taken took get gets got used using include includes included let lets new "
    "first second last next"
)
STOPWORDS = (
    DETERMINERS
    | AUXILIARIES
    | NEGATIONS
    | PRONOUNS
    | _words(
        "and or but nor so yet if then else than as at by for from in into of off on onto out over to up upon "
        "with within without about above across after against along among around before behind below beneath "
        "beside besides between beyond during except inside near since through throughout till toward towards "
        "under underneath until unlike via whether while whereas although though because unless once when "
        "whenever where wherever why how however therefore thus hence moreover furthermore meanwhile also "
        "too very just only even still already again ever often usually sometimes always rather quite almost "
        "perhaps maybe here there now today yesterday tomorrow yes ok okay oh please thanks thank mine yours "
        "ours theirs itself himself herself themselves ourselves myself yourself whom whoever whatever "
        "whichever anyone anything anybody someone something somebody everyone everything everybody nothing "
        "nobody none more most less least same own like et al etc eg ie vs per including "
        "regarding concerning according instead whereby wherein whose let's well"
    )
    | OPEN_CLASS
)
#: Words that say nothing about what a question asks or a sentence states: the stopwords but the open-class ones.
FUNCTION_WORDS = STOPWORDS - OPEN_CLASS
CONNECTORS = _words("of for de la le du del der den van von da di dos das y &")
HEAD_CONNECTORS = _words("of for")
CONJUNCTIONS = _words("and or but while whereas although though nor")
PERSON_TITLES = _words("dr mr mrs ms miss prof professor sir dame lord lady president senator judge saint")
ORG_WORDS = _words(
    "inc ltd llc corp corporation company co group university institute hospital clinic agency association "
    "foundation ministry department council bank society organization organisation pharmaceuticals "
    "laboratories labs gmbh ag sa plc college school committee commission authority trust fund center centre "
    "systems technologies museum library press"
)
PLACE_WORDS = _words(
    "river lake mount mountain mountains island islands city county province republic kingdom street avenue "
    "valley bay sea ocean desert peninsula district region gulf coast"
)
DISEASE_WORDS = _words(
    "disease syndrome disorder cancer infection deficiency failure carcinoma tumor tumour fever virus "
    "infarction sclerosis pain ache headache inflammation"
)
DISEASE_SUFFIXES = ("itis", "osis", "emia", "aemia", "oma", "pathy", "algia", "plasia", "trophy", "ectasis")
DRUG_SUFFIXES = (
    "mab", "nib", "pril", "olol", "statin", "cillin", "mycin", "cycline", "azole", "prazole", "sartan",
    "dipine", "vir", "floxacin", "profen", "oxetine", "tidine", "parin", "triptan", "azepam", "azolam",
    "caine", "formin", "gliptin", "afil", "setron",
)
ADJECTIVE_SUFFIXES = ("ous", "ful", "less", "able", "ible", "ly")
COMMON_ADJECTIVES = _words(
    "common main major minor rare primary secondary important different similar various certain possible "
    "likely unlikely good bad high low large small big long short early late recent current available "
    "effective useful serious severe mild moderate acute chronic normal typical general specific significant "
    "best better worse worst full whole entire free true false due able present known unknown likely"
)
GENERIC_NOUNS = _words(
    "thing things way ways time times lot lots kind kinds sort sorts type types part parts case cases fact "
    "facts example examples number numbers amount amounts level levels result results use uses people person "
    "someone day days year years month months week weeks place places point points reason reasons area areas "
    "side sides form forms end order group groups set sets item items issue issues question questions answer "
    "answers information data section sections page pages figure table note notes detail details term terms "
    "name names word words version versions step steps addition instance others matter purpose purposes"
)
ED_NOT_VERBS = _words(
    "bed red need seed speed breed feed weed shed hundred indeed naked sacred wicked kindred creed greed "
    "steed tweed sled wed bled"
)

VERBS = _words(
    "treat cause reduce increase decrease prevent inhibit relieve block bind produce contain include require "
    "affect develop found acquire prescribe manufacture show suggest indicate lead result associate interact "
    "target activate regulate encode express own buy sell employ hire locate base work live study discover "
    "invent create publish write describe report observe improve lower raise cure diagnose administer "
    "combine recommend approve launch partner compete merge sue manage serve support provide offer help call "
    "name consider become remain seem appear occur happen depend relate compare connect link belong marry "
    "prescribe trigger worsen alleviate ease suppress stimulate induce mediate modulate metabolize metabolise "
    "convert transport release secrete absorb excrete lack exceed replace precede follow accompany "
    "complicate contraindicate elevate damage destroy kill infect spread transmit carry protect detect "
    "measure monitor control limit restrict enable allow permit lose win beat defeat attack invade capture "
    "head chair direct govern rule lead join leave visit meet speak sign build design develop fund invest "
    "distribute supply ship deliver import export license acquire own operate run open close headquarter "
    "establish form split cost pay earn charge owe collaborate cooperate partner compete oppose precede "
    "succeed replace report teach train receive send give get take make see know find think tell ask "
    "need want like love hate prefer list rank"
)
IRREGULAR = {
    "was": "be", "were": "be", "been": "be", "took": "take", "taken": "take", "gave": "give", "given": "give",
    "made": "make", "known": "know", "knew": "know", "found": "find", "shown": "show", "saw": "see",
    "seen": "see", "did": "do", "done": "do", "went": "go", "gone": "go", "wrote": "write",
    "written": "write", "held": "hold", "led": "lead", "built": "build", "brought": "bring",
    "bought": "buy", "thought": "think", "caught": "catch", "taught": "teach", "sold": "sell", "told": "tell",
    "left": "leave", "kept": "keep", "met": "meet", "paid": "pay", "began": "begin", "begun": "begin",
    "chose": "choose", "chosen": "choose", "drew": "draw", "drawn": "draw", "drove": "drive",
    "driven": "drive", "grew": "grow", "grown": "grow", "spoke": "speak", "spoken": "speak", "became": "become",
    "ran": "run", "won": "win", "spread": "spread", "bound": "bind", "got": "get", "gotten": "get",
    "sent": "send", "spent": "spend", "lost": "lose", "fell": "fall", "fallen": "fall", "rose": "rise",
    "risen": "rise", "broke": "break", "broken": "break", "split": "split", "cost": "cost", "put": "put",
}
MODALS_AND_TO = _words("to will would shall should can could may might must not never do does did")
PREPOSITIONS = _words("of at from in on for with by to into about under near via among between within")
PARTICLES = _words("by with for to from in into of on as against about through")

_DOUBLED = re.compile(r"([bdgklmnprtz])\1$")


@lru_cache(maxsize=32_768)
def verb_lemma(word: str) -> tuple[str, str] | None:
    """``(lemma, form)`` when ``word`` (lower case) is a form of a listed verb; form is base/s/ed/ing."""
    if word in IRREGULAR:
        return IRREGULAR[word], "ed"
    if word in VERBS:
        return word, "base"
    candidates: list[tuple[str, str]] = []
    if word.endswith("ies"):
        candidates.append((word[:-3] + "y", "s"))
    if word.endswith("es"):
        candidates.append((word[:-2], "s"))
    if word.endswith("s"):
        candidates.append((word[:-1], "s"))
    if word.endswith("ied"):
        candidates.append((word[:-3] + "y", "ed"))
    if word.endswith("ed"):
        candidates += [(word[:-2], "ed"), (word[:-1], "ed")]
        if _DOUBLED.search(word[:-2]):
            candidates.append((word[:-3], "ed"))
    if word.endswith("ing"):
        candidates += [(word[:-3], "ing"), (word[:-3] + "e", "ing")]
        if _DOUBLED.search(word[:-3]):
            candidates.append((word[:-4], "ing"))
    for lemma, form in candidates:
        if lemma in VERBS:
            return lemma, form
    return None


def third_person(lemma: str) -> str:
    """``treat`` -> ``treats``, ``reduce`` -> ``reduces``, ``carry`` -> ``carries``, ``be`` -> ``is``."""
    if lemma == "be":
        return "is"
    if lemma == "have":
        return "has"
    if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
        return lemma + "es"
    if lemma.endswith("y") and len(lemma) > 1 and lemma[-2] not in "aeiou":
        return lemma[:-1] + "ies"
    return lemma + "s"


def looks_adjective(word: str) -> bool:
    """Adjective or adverb by list or suffix (what may not end a noun phrase)."""
    return word in COMMON_ADJECTIVES or word.endswith(ADJECTIVE_SUFFIXES)


def is_modifier(word: str) -> bool:
    """A determiner or adjective: what makes the next "-s"/"-ed" word a noun or participle, not a verb."""
    return word in DETERMINERS or word in COMMON_ADJECTIVES or word.endswith(ADJECTIVE_SUFFIXES[:-1])
