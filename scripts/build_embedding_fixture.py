"""Build tests/fixtures/wordllama_lee_pairs.npz offline, from a real contrastively trained model.

Model: WordLlama ``l2_supercat`` (256-d, trained with a multiple-negatives ranking loss, i.e.
InfoNCE with in-batch negatives), whose weights ship inside the ``wordllama`` wheel.
Text: the Lee news corpus that ships inside the ``gensim`` wheel (gensim/test/test_data/lee*.cor),
split into sentences.  Positives by augmentation, as in EDA / SimCSE-style pipelines: a random
contiguous crop (keeping 60-100 % of the words) followed by word dropout (each word kept with
probability 0.85, at least 3 words kept).

Neither package is a dependency of infonce-sym; install them for this script only, e.g. in a
separate virtual environment:

    python -m venv /tmp/fixture_venv && /tmp/fixture_venv/bin/pip install wordllama gensim
    /tmp/fixture_venv/bin/python scripts/build_embedding_fixture.py

The file holds float16 arrays (rows are unit vectors before rounding to float16):
``anchors``, ``positives`` (n x 256, the model), ``anchors_trunc``, ``positives_trunc`` (the
same texts through the Matryoshka-truncated 128-d model, zero-padded to 256: a second
"model version" for Prop. 4, ``--compare``), and ``texts`` is not stored (the corpus ships
with gensim; ``sentence_index`` gives each pair's sentence number in the split corpus).
"""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")        # nothing is downloaded

SEED = 20261201


def sentences():
    import gensim
    data = Path(gensim.__file__).parent / "test" / "test_data"
    out = []
    for name in ("lee_background.cor", "lee.cor"):
        text = (data / name).read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            for sent in re.split(r"(?<=[.!?])\s+", line.strip()):
                words = sent.split()
                if len(words) >= 8:
                    out.append(" ".join(words))
    # dedupe, keep the order
    seen, unique = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            unique.append(s)
    return unique


def augment(sentence, rng):
    """Crop to a random contiguous 60-100 % of the words, then drop each word w.p. 0.15."""
    words = sentence.split()
    m = len(words)
    keep = max(3, int(np.ceil(rng.uniform(0.6, 1.0) * m)))
    start = int(rng.integers(0, m - keep + 1))
    crop = words[start:start + keep]
    mask = rng.random(len(crop)) < 0.85
    if mask.sum() < 3:
        mask[rng.choice(len(crop), size=3, replace=False)] = True
    return " ".join(w for w, k in zip(crop, mask) if k)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="number of pairs (default 2000)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"
                                             / "wordllama_lee_pairs.npz"))
    args = parser.parse_args(argv)

    import wordllama
    from wordllama import WordLlama
    folder = Path(wordllama.__file__).parent
    model = WordLlama.load(cache_dir=folder, disable_download=True)
    model_trunc = WordLlama.load(cache_dir=folder, disable_download=True, trunc_dim=128)

    sents = sentences()
    if len(sents) < args.n:
        raise SystemExit(f"only {len(sents)} sentences in the corpus, asked for {args.n}")
    rng = np.random.default_rng(np.random.SeedSequence(SEED))
    index = np.sort(rng.choice(len(sents), size=args.n, replace=False))
    anchors_text = [sents[i] for i in index]
    positives_text = [augment(s, rng) for s in anchors_text]

    def embed(m, texts, pad_to=None):
        e = np.asarray(m.embed(texts, norm=True), dtype=np.float64)
        e /= np.linalg.norm(e, axis=1, keepdims=True)
        if pad_to is not None and e.shape[1] < pad_to:
            e = np.hstack([e, np.zeros((e.shape[0], pad_to - e.shape[1]))])
        return e.astype(np.float16)

    a, p = embed(model, anchors_text), embed(model, positives_text)
    a2, p2 = embed(model_trunc, anchors_text, a.shape[1]), embed(model_trunc, positives_text, a.shape[1])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, anchors=a, positives=p, anchors_trunc=a2, positives_trunc=p2,
                        sentence_index=index.astype(np.int32))
    cos = np.sum(a.astype(float) * p.astype(float), axis=1)
    print(f"{out}: n = {args.n}, d = {a.shape[1]}, {out.stat().st_size / 1e6:.2f} MB; "
          f"positive cosine mean {cos.mean():.3f}, quartiles {np.percentile(cos, [25, 50, 75]).round(3)}")
    print("example:", anchors_text[0], "||", positives_text[0])


if __name__ == "__main__":
    main()
