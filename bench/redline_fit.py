"""Fit the red line's learned judge (core/redline/learned.py) and choose its two thresholds.

    python bench/redline_fit.py [--write] [--show-misses]

Training data: every labelled sentence of bench/data/redline/train/*.jsonl (teacher
sentences and disguised values, written by hand for this purpose: {"text", "sensitive",
"kind", "lang"}; a, b and the former held-out rounds c, d, e, h, k, n, p, s, w, x, aa, ab
as ordinary messages, c and d as near-twin pairs, f as long requests and twins, y and z as
marks and conditions in many forms with their look-alikes, ac-am by focus: subtle cases,
English- and Chinese-speaking school systems, long messages and lists, exercises and
fiction, staff voices, typed facts, parents and other countries, hard benign), 1,500 longer
messages joined from two of them (an ordinary request, then a sentence that decides the
label), and the red line's own tables in tests/core/ (redline_table, redline_probe,
redline_samples; their kind is what the rules say, as the rules were written for them).
The judge reads a sentence's model vector and its hashed n-grams (core/redline/learned.py);
with --hidden N it is a network with one hidden layer of N ReLU units (shipped: --hidden 64
--epochs 8 --fold-splits 3 --max-benign 0.015), else a logistic model.

Printed, side by side:
- a leave-one-file-out estimate for each training file (fit on the others, judge this
  one): the rules alone, the judge alone and `screen()`'s combination, as the share of
  sensitive sentences refused and of benign ones refused;
- the thresholds (high, low, clause_high: see core.redline.screen) chosen on the
  judgements of the ordinary-message files in a 5-fold split across every file (each
  fold judged by a model fitted on the other four): the most sensitive sentences
  refused while at most MAX_BENIGN_REFUSED of the benign ones are;
- the held-out sets (bench/data/redline/heldout/*.jsonl), never used to fit or to choose:
  the figures to believe.

With --write, the final model (fitted on all training data) and the thresholds go to
core/data/redline_model.npz. Sentence vectors are cached in bench/.cache/ (embedding
3,000 sentences takes a few minutes on two cores). Never fit on public benchmarks.
"""

import argparse
import functools
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT / "bench" / "data" / "redline"
CACHE = ROOT / "bench" / ".cache" / "redline_vectors.npz"
MAX_BENIGN_REFUSED = 0.02  # out of fold; the goal is at most 2 % on held-out messages
FOLDS = 5
L2 = 30.0
HIGHS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.825, 0.85, 0.875, 0.9, 0.95)
LOWS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
CLAUSE_HIGHS = (0.9, 0.95, 0.98, 0.99, 1.01)  # 1.01: clauses never refuse alone
CLAUSE_LOWS = (0.7, 0.8, 0.9, 0.95, 1.01)  # 1.01: a clause never lets the rules' words stand
# The thresholds are chosen on the files written as ordinary teacher messages (a, b and the
# former held-out rounds c, d), not on
# those written as near-twin pairs (c, d: the same words, one sensitive and one not), which
# teach the judge where the line is but do not look like what teachers type.
CHOOSE_ON = ("written_a_", "written_b_", "written_round_", "written_g_", "written_j_", "written_l_")
JOINED = 1500
BATCH = 32  # texts embedded in one pass


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryproj.settings")
    import logging

    import django

    django.setup()
    logging.getLogger("jieba").setLevel(logging.WARNING)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table_rows() -> list[dict]:
    """The rules' own tables, labelled with the kind the rules give (sensitive lines the
    rules do not refuse are left out: their kind is unknown)."""
    from core import redline
    from tests.core import redline_probe, redline_samples, redline_table

    rows = []
    for module in (redline_table, redline_probe, redline_samples):
        for item in module.SENSITIVE:
            text = item[0] if isinstance(item, tuple) else item
            kind = redline.check(text).kind
            if kind:
                rows.append({"text": text, "sensitive": True, "kind": kind})
        rows += [{"text": text, "sensitive": False, "kind": "none"} for text in module.BENIGN]
    for text, _trick in getattr(redline_table, "OBFUSCATED", ()):
        kind = redline.check(text).kind
        if kind:
            rows.append({"text": text, "sensitive": True, "kind": kind})
    return rows


def joined(rows: list[dict], n: int, seed: int = 7) -> list[dict]:
    """`n` longer messages made of two training sentences of one language, the first benign:
    labelled as the second. A teacher's message often asks for something ordinary and then
    mentions a pupil in passing; the judge learns that one clause is enough."""
    import random

    rng = random.Random(seed)
    out = []
    by_lang = {}
    for row in rows:
        by_lang.setdefault(row.get("lang", "zh"), []).append(row)
    langs = sorted(by_lang)
    while len(out) < n:
        lang = rng.choice(langs)
        pool = by_lang[lang]
        first = rng.choice([row for row in pool if not row["sensitive"]])
        second = rng.choice(pool)
        sep = rng.choice(["，", "。", "；", "，对了，", "。另外，"] if lang == "zh" else [". ", "; ", ". Also, ", ", and "])
        text = first["text"].rstrip("。.；;，, ") + sep + second["text"]
        out.append({"text": text, "sensitive": second["sensitive"], "kind": second["kind"], "lang": lang})
    return out


def load_sets() -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
    train = {path.stem: read_jsonl(path) for path in sorted((DATA / "train").glob("*.jsonl"))}
    train["joined_pairs"] = joined([row for rows in train.values() for row in rows if "lang" in row], JOINED)
    train["tests_core_tables"] = table_rows()
    heldout = {path.stem: read_jsonl(path) for path in sorted((DATA / "heldout").glob("*.jsonl"))}
    return train, heldout


def vectors_for(texts: list[str]) -> np.ndarray:
    """Query vectors of `texts` (as the judge embeds them), from the cache where it has them."""
    from core import embedding
    from core.redline.learned import judged_text

    def key(text):
        return hashlib.sha1(text.encode()).hexdigest()

    cache = {}
    if CACHE.exists():
        data = np.load(CACHE)
        cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
    texts = [judged_text(text) for text in texts]  # what the judge embeds
    missing = [t for t in dict.fromkeys(texts) if key(t) not in cache]
    if missing:
        model = embedding.model()
        if model is None:
            raise SystemExit("the embedding model could not load")
        started = time.monotonic()
        # in batches (the encoder packs a batch's texts without padding, each attending only
        # to itself: a text's vector does not depend on its batch)
        ordered = sorted(missing, key=len)
        for start in range(0, len(ordered), BATCH):
            batch = ordered[start:start + BATCH]
            for text, vector in zip(batch, model.queries(batch), strict=True):
                cache[key(text)] = vector
            done = start + len(batch)
            if done % (BATCH * 20) == 0 or done == len(ordered):
                print(f"  embedded {done}/{len(ordered)} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(cache)
        np.savez(CACHE, keys=np.array(keys), vectors=np.stack([cache[k] for k in keys]))
    return np.stack([cache[key(t)] for t in texts])


def _prepared(X: np.ndarray, y: np.ndarray, n_classes: int):
    """What both fits start from: the features' mean and scale, the standardised features,
    the one-hot classes and each sentence's weight (each class worth as much as "none")."""
    X = X.astype(np.float32)
    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-3
    Y = np.eye(n_classes, dtype=np.float32)[y]
    counts = np.maximum(Y.sum(axis=0), 1)
    sample_w = (counts[0] / counts)[y]
    return mean, scale, (X - mean) / scale, Y, (sample_w / sample_w.mean()).astype(np.float32)


def fit(X: np.ndarray, y: np.ndarray, n_classes: int, *, iters: int = 400, lr: float = 0.5, momentum: float = 0.9):
    """Multinomial logistic regression with L2, full-batch gradient descent with momentum on
    standardised features. Classes are weighted so that each is worth as much as the "none"
    class (the sensitive kinds are split six ways)."""
    mean, scale, Z, Y, sample_w = _prepared(X, y, n_classes)
    n, d = Z.shape
    W, b = np.zeros((d, n_classes), np.float32), np.zeros(n_classes, np.float32)
    vW, vb = np.zeros_like(W), np.zeros_like(b)
    for _ in range(iters):
        logits = Z @ W + b
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        G = (P - Y) * sample_w[:, None]
        vW = momentum * vW - lr * (Z.T @ G / n + L2 * W / n)
        vb = momentum * vb - lr * G.mean(axis=0)
        W += vW
        b += vb
    return mean, scale, W, b, None, None


def fit_hidden(X: np.ndarray, y: np.ndarray, n_classes: int, hidden: int, *, epochs: int, l2: float,
               batch: int = 256, lr: float = 1e-3, seed: int = 0):
    """The same classes through one hidden layer of `hidden` ReLU units (inputs standardised
    and clipped as core.redline.learned.probabilities does), fitted by Adam on minibatches
    with L2, classes weighted as fit() does."""
    from core.redline.learned import HIDDEN_INPUT_CLIP

    mean, scale, Z, Y, sample_w = _prepared(X, y, n_classes)
    Z = np.clip(Z, -HIDDEN_INPUT_CLIP, HIDDEN_INPUT_CLIP)
    n, d = Z.shape
    rng = np.random.default_rng(seed)
    params = [rng.normal(0, np.sqrt(2 / d), (d, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, n_classes)).astype(np.float32),
              np.zeros(n_classes, np.float32)]
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            W1, b1, W2, b2 = params
            zb = Z[idx]
            pre = zb @ W1 + b1
            h = np.maximum(pre, 0.0)
            logits = h @ W2 + b2
            logits -= logits.max(axis=1, keepdims=True)
            P = np.exp(logits)
            P /= P.sum(axis=1, keepdims=True)
            G = (P - Y[idx]) * sample_w[idx, None] / len(idx)
            gh = (G @ W2.T) * (pre > 0)
            grads = [zb.T @ gh + l2 * W1 / n, gh.sum(axis=0), h.T @ G + l2 * W2 / n, G.sum(axis=0)]
            step += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                params[i] -= lr * (m[i] / (1 - 0.9 ** step)) / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)
    W1, b1, W2, b2 = params
    return mean, scale, W2, b2, W1, b1


def p_sensitive(X, params, classes):
    from core.redline.learned import Params, probabilities

    mean, scale, W, b, W1, b1 = params
    probs = probabilities(X, Params(classes, mean, scale, W, b, 0.0, 0.0, 0.0, 0.0, W1, b1))
    return 1.0 - probs[:, classes.index("none")]


def feature_rows(texts: list[str]) -> np.ndarray:
    from core.redline.learned import features

    vectors = vectors_for(texts)
    return np.stack([features(vector, text) for vector, text in zip(vectors, texts, strict=True)])


def clause_p(texts: list[str], params, classes) -> np.ndarray:
    """The highest probability of any one clause of each text (0 for a one-clause text)."""
    from core.redline.learned import clauses

    parts = [clauses(text) for text in texts]
    flat = [part for group in parts for part in group]
    if not flat:
        return np.zeros(len(texts))
    p = p_sensitive(feature_rows(flat), params, classes)
    out, start = np.zeros(len(texts)), 0
    for i, group in enumerate(parts):
        if group:
            out[i] = p[start:start + len(group)].max()
            start += len(group)
    return out


@functools.lru_cache(maxsize=None)
def _in_disguise(text: str, kinds: tuple[str, ...]) -> bool:
    from core.redline import written_in_disguise

    return written_in_disguise(text, kinds)


def combine(p, pc, verdicts, texts, high, low, clause_high, clause_low):
    """screen()'s decision (core.redline.decide) for each text, from the judge's
    probabilities and the rules' verdict (core.redline.check)."""
    from core.redline import _plain, decide, word_problem
    from core.redline.learned import Judgement, Params

    limits = Params((), None, None, None, None, high, low, clause_high, clause_low)
    return np.array([bool(decide(v.kinds, Judgement(float(a), "score", float(b)), chars=len(text), limits=limits,
                                 disguised=_in_disguise(text, v.kinds), in_records=v.in_records,
                                 exercise=word_problem(text, _plain(text))))
                     for a, b, v, text in zip(p, pc, verdicts, texts, strict=True)])


def rates(refused, sensitive):
    sensitive = np.asarray(sensitive, dtype=bool)
    pos = refused[sensitive].mean() if sensitive.any() else float("nan")
    neg = refused[~sensitive].mean() if (~sensitive).any() else float("nan")
    return pos, neg


def fmt(pos, neg, sensitive):
    n_pos, n_neg = int(np.sum(sensitive)), int(np.sum(~np.asarray(sensitive, dtype=bool)))
    neg_text = f"{neg:6.1%} of {n_neg:3d}" if n_neg else "     -       "
    return f"{pos:6.1%} of {n_pos:3d} | {neg_text}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="save the model to core/data/redline_model.npz")
    parser.add_argument("--show-misses", action="store_true", help="print the held-out sentences judged wrong")
    parser.add_argument("--max-benign", type=float, default=MAX_BENIGN_REFUSED,
                        help="the share of benign sentences the chosen thresholds may refuse (out of fold)")
    parser.add_argument("--no-per-file", dest="per_file", action="store_false",
                        help="skip the leave-one-file-out estimates (a quicker run)")
    parser.add_argument("--hidden", type=int, default=0,
                        help="units of a hidden layer (0: a linear model, logistic regression)")
    parser.add_argument("--epochs", type=int, default=8, help="passes over the data for a hidden layer")
    parser.add_argument("--hidden-l2", type=float, default=3.0, help="L2 of a hidden layer's weights")
    parser.add_argument("--fold-splits", type=int, default=1,
                        help="k-fold splits whose judgements are averaged to choose the thresholds")
    parser.add_argument("--out", type=Path, help="with --write: where to save (default: the shipped model file)")
    args = parser.parse_args()

    def fit_model(X, y, n_classes):
        if args.hidden:
            return fit_hidden(X, y, n_classes, args.hidden, epochs=args.epochs, l2=args.hidden_l2)
        return fit(X, y, n_classes)
    setup_django()
    from core import redline
    from core.redline import KINDS
    from core.redline.learned import MODEL_FILE, clauses

    classes = ("none", *KINDS)
    train, heldout = load_sets()
    every = [row["text"] for rows in (*train.values(), *heldout.values()) for row in rows]
    every += [part for text in every for part in clauses(text)]
    print(f"embedding {len(every)} sentences and clauses (cached after the first run)", file=sys.stderr)
    vectors_for(every)

    def arrays(rows):
        texts = [row["text"] for row in rows]
        y = np.array([classes.index(row["kind"]) if row["sensitive"] else 0 for row in rows])
        return texts, feature_rows(texts), y, [redline.check(text) for text in texts]

    data = {name: arrays(rows) for name, rows in train.items()}
    # Leave one file out: out-of-fold judgements for every training file.
    out_of_fold = {}
    for n_fold, name in enumerate(data if args.per_file else (), 1):
        print(f"  fold {n_fold}/{len(data)}: judging {name}", file=sys.stderr)
        X = np.vstack([data[other][1] for other in data if other != name])
        y = np.concatenate([data[other][2] for other in data if other != name])
        params = fit_model(X, y, len(classes))
        out_of_fold[name] = (p_sensitive(data[name][1], params, classes), clause_p(data[name][0], params, classes))
    # k folds across every file: the thresholds are chosen on judgements of a model that has
    # seen each file's style, as the final one has (the leave-one-file-out judgements are
    # less confident than the final model's, and chose thresholds that refused too little
    # of the held-out sets: 92.8-96.1 % where 95.0-98.3 % came within 2 % of the benign).
    # With --fold-splits, the judgements of several splits are averaged: one split's luck
    # (which sentences share a fold) moved the chosen thresholds a lot between refits.
    k_fold = {name: (np.zeros(len(data[name][2])), np.zeros(len(data[name][2]))) for name in data}
    for split in range(args.fold_splits):
        rng = np.random.default_rng(3 + split)
        fold_of = {name: rng.integers(0, FOLDS, len(data[name][2])) for name in data}
        for fold in range(FOLDS):
            print(f"  k-fold {fold + 1}/{FOLDS} (split {split + 1}/{args.fold_splits})", file=sys.stderr)
            X = np.vstack([data[name][1][fold_of[name] != fold] for name in data])
            y = np.concatenate([data[name][2][fold_of[name] != fold] for name in data])
            params = fit_model(X, y, len(classes))
            for name in data:
                mask = fold_of[name] == fold
                if mask.any():
                    k_fold[name][0][mask] += p_sensitive(data[name][1][mask], params, classes) / args.fold_splits
                    k_fold[name][1][mask] += clause_p([t for t, m in zip(data[name][0], mask) if m], params,
                                                      classes) / args.fold_splits
    written = [name for name in data if name.startswith(CHOOSE_ON)]
    pooled_p = np.concatenate([k_fold[name][0] for name in written])
    pooled_c = np.concatenate([k_fold[name][1] for name in written])
    pooled_y = np.concatenate([data[name][2] > 0 for name in written])
    pooled_k = [k for name in written for k in data[name][3]]
    pooled_t = [t for name in written for t in data[name][0]]
    scored = []
    for high in HIGHS:
        for low in LOWS:
            for clause_high in CLAUSE_HIGHS:
                for clause_low in CLAUSE_LOWS:
                    if low <= high <= clause_high and clause_low <= clause_high:
                        limits = (high, low, clause_high, clause_low)
                        pos, neg = rates(combine(pooled_p, pooled_c, pooled_k, pooled_t, *limits), pooled_y)
                        scored.append((pos, neg, *limits))
    within = [row for row in scored if row[1] <= args.max_benign] or sorted(scored, key=lambda r: r[1])[:1]
    pos, neg, *chosen = max(within, key=lambda r: (r[0], -r[1]))
    high, low, clause_high, clause_low = chosen
    print(f"\nthresholds, on the pooled {FOLDS}-fold judgements of {', '.join(written)} ({len(pooled_y)} "
          f"sentences): the most sensitive refused with at most {args.max_benign:.1%} of the benign")
    print(f"  chosen high {high}, low {low}, clause_high {clause_high}, clause_low {clause_low}: "
          f"{fmt(pos, neg, pooled_y)}")
    for row in sorted(scored, key=lambda r: r[1])[::max(1, len(scored) // 12)]:
        print(f"  e.g. high {row[2]}, low {row[3]}, clause_high {row[4]}, clause_low {row[5]}: "
              f"{fmt(row[0], row[1], pooled_y)}")

    # the judge alone, threshold-free: how much of the sensitive it ranks above the benign
    benign_p = np.sort(pooled_p[~pooled_y])[::-1]
    for share in (0.01, 0.02, 0.05):
        cut = benign_p[int(share * len(benign_p))]
        print(f"  judge alone, {FOLDS}-fold: {np.mean(pooled_p[pooled_y] > cut):6.1%} of the sensitive above the "
              f"benign's top {share:.0%}")

    header = "sensitive refused | benign refused"
    if args.per_file:
        print(f"\nleave-one-file-out          rules alone: {header}  ||  rules + judge (screen)")
    for name in out_of_fold:
        sensitive = data[name][2] > 0
        rules = np.array([bool(v) for v in data[name][3]])
        both = combine(*out_of_fold[name], data[name][3], data[name][0], high, low, clause_high, clause_low)
        print(f"  {name:28s} {fmt(*rates(rules, sensitive), sensitive)}  ||  {fmt(*rates(both, sensitive), sensitive)}")

    final = fit_model(np.vstack([d[1] for d in data.values()]), np.concatenate([d[2] for d in data.values()]),
                      len(classes))
    print(f"\nheld out (never fitted on, never used to choose)   rules alone: {header}  ||  rules + judge (screen)")
    sentence_rounds = []
    for name, rows in heldout.items():
        texts, X, y, verdicts = arrays(rows)
        sensitive = y > 0
        p, pc = p_sensitive(X, final, classes), clause_p(texts, final, classes)
        rules = np.array([bool(v) for v in verdicts])
        both = combine(p, pc, verdicts, texts, high, low, clause_high, clause_low)
        print(f"  {name:28s} {fmt(*rates(rules, sensitive), sensitive)}  ||  {fmt(*rates(both, sensitive), sensitive)}")
        if name.endswith("_sentences"):
            sentence_rounds.append((rules, both, sensitive))
        if args.show_misses:
            for row, refused, prob, prob_c in zip(rows, both, p, pc, strict=True):
                if refused != row["sensitive"]:
                    print(f"      {'MISS' if row['sensitive'] else 'FP  '} p={prob:.2f} clause={prob_c:.2f} {row['text']}")
    if sentence_rounds:
        rules, both, sensitive = (np.concatenate(parts) for parts in zip(*sentence_rounds))
        print(f"  {'all sentence rounds':28s} {fmt(*rates(rules, sensitive), sensitive)}  ||  "
              f"{fmt(*rates(both, sensitive), sensitive)}")
    if args.write:
        mean, scale, W, b, W1, b1 = final
        hidden = {} if W1 is None else {"hidden_weights": W1.astype(np.float32), "hidden_bias": b1.astype(np.float32)}
        out = args.out or MODEL_FILE
        np.savez_compressed(out, classes=np.array(classes), mean=mean.astype(np.float32),
                            scale=scale.astype(np.float32), weights=W.astype(np.float32),
                            bias=b.astype(np.float32), high=np.float32(high), low=np.float32(low),
                            clause_high=np.float32(clause_high), clause_low=np.float32(clause_low), **hidden)
        print(f"\nwrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
