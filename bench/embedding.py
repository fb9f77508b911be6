"""Embedder throughput: all-MiniLM-L6-v2 (sentence-transformers, CPU) and the hashing embedder.

    python -m bench.embedding [--names 2000] [--chunks 200] [--batch-size 64]

Times the model load (import of sentence-transformers included, then the weights), texts/second for short
entity names (1-4 words) and for 200-word-piece chunks, and the same for the hashing embedder. Texts are
generated from a fixed vocabulary with a fixed seed; the chunk length is checked with the model's tokenizer.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from hybridkg.structural.embedding.hashing import HashEmbedder
from hybridkg.structural.embedding.sentence import SentenceEmbedder

VOCAB = (  # noqa: SIM905
    "aspirin inhibits platelet aggregation cyclooxygenase enzyme heart attack myocardial infarction risk patients "
    "treatment dose daily low clinical trial reduced mortality bleeding gastrointestinal side effects stroke "
    "prevention therapy cardiovascular disease blood pressure cholesterol statin drug interaction warfarin "
    "anticoagulant kidney liver function study results showed significant improvement compared placebo group "
    "hospital admission chronic condition diabetes insulin glucose metabolism inflammation pain fever relief"
).split()


def names(n: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 4))).title() for _ in range(n)]


def chunks(n: int, tokens: int, rng: random.Random, count_tokens: object) -> list[str]:
    out = []
    for _ in range(n):
        words = [rng.choice(VOCAB) for _ in range(tokens)]
        while count_tokens(" ".join(words)) > tokens:  # type: ignore[operator]
            words.pop()
        out.append(" ".join(words) + ".")
    return out


def rate(embed: object, texts: list[str]) -> float:
    t0 = time.perf_counter()
    embed(texts)  # type: ignore[operator]
    return len(texts) / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--names", type=int, default=2_000)
    ap.add_argument("--chunks", type=int, default=200)
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args()
    rng = random.Random(7)

    t0 = time.perf_counter()
    model = SentenceEmbedder(batch_size=args.batch_size)
    model.embed(["warm up"])
    load_s = time.perf_counter() - t0
    tokenizer = model._load().tokenizer

    def count_tokens(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    name_texts = names(args.names, rng)
    chunk_texts = chunks(args.chunks, args.tokens, rng, count_tokens)
    hashing = HashEmbedder(384)
    out = {
        "model_load_s": round(load_s, 2),
        "batch_size": args.batch_size,
        "sentence_names_per_s": round(rate(model.embed, name_texts)),
        "sentence_chunks_per_s": round(rate(model.embed, chunk_texts), 1),
        "chunk_tokens_mean": round(sum(count_tokens(c) for c in chunk_texts) / len(chunk_texts), 1),
        "hash_names_per_s": round(rate(hashing.embed, name_texts)),
        "hash_chunks_per_s": round(rate(hashing.embed, chunk_texts)),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
