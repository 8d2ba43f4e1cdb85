"""The red line's thresholds (core.redline.screen: `high`, `low`) swept over labelled rounds
for one model file: what each pair refuses, and the best pair under each share of benign.

    python bench/redline_thresholds.py [--model FILE] [--write HIGH LOW] [ROUND.jsonl ...]

Without rounds, the held-out sentence rounds of bench/data/redline/heldout/. Use rounds that
are not the final estimate: a pair chosen here on rounds that were measured before is then
measured once on fresh ones (README, red line). With --write, the model file keeps its
weights and takes the pair (clause thresholds off: 1.01). Vectors come from
bench/redline_fit.py's cache (the first run embeds what is missing).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import redline_fit as fit  # noqa: E402

HIGHS = (0.6, 0.7, 0.75, 0.8, 0.825, 0.85, 0.875, 0.9, 0.925, 0.95, 0.97)
LOWS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
BENIGN_CAPS = (0.01, 0.0125, 0.015, 0.0175, 0.02)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rounds", nargs="*", type=Path)
    parser.add_argument("--model", type=Path, help="default: the shipped model file")
    parser.add_argument("--write", nargs=2, type=float, metavar=("HIGH", "LOW"))
    args = parser.parse_args()
    fit.setup_django()
    from core import redline
    from core.redline import KINDS
    from core.redline.learned import MODEL_FILE

    model = args.model or MODEL_FILE
    data = dict(np.load(model))
    if args.write:
        high, low = args.write
        data.update(high=np.float32(high), low=np.float32(low), clause_high=np.float32(1.01),
                    clause_low=np.float32(1.01))
        np.savez_compressed(model, **data)
        print(f"wrote high {high}, low {low} to {model}")
        return
    rounds = args.rounds or sorted((fit.DATA / "heldout").glob("*_sentences.jsonl"))
    classes = ("none", *KINDS)
    params = (data["mean"], data["scale"], data["weights"], data["bias"], data.get("hidden_weights"),
              data.get("hidden_bias"))
    rows = [row for path in rounds for row in fit.read_jsonl(path)]
    texts = [row["text"] for row in rows]
    sensitive = np.array([bool(row["sensitive"]) for row in rows])
    verdicts = [redline.check(text) for text in texts]
    p = fit.p_sensitive(fit.feature_rows(texts), params, classes)
    pc = fit.clause_p(texts, params, classes)

    def refused(high, low, clause_high=1.01, clause_low=1.01):
        return fit.rates(fit.combine(p, pc, verdicts, texts, high, low, clause_high, clause_low), sensitive)

    own = tuple(round(float(data[key]), 3) for key in ("high", "low", "clause_high", "clause_low"))
    print(f"{model.name} over {len(rounds)} rounds; sensitive refused | benign refused")
    print(f"  its own thresholds {own}: {fit.fmt(*refused(*own), sensitive)}")
    swept = [(*refused(high, low), high, low) for high in HIGHS for low in LOWS if low <= high]
    for cap in BENIGN_CAPS:
        within = [row for row in swept if row[1] <= cap]
        if within:
            pos, neg, high, low = max(within)
            print(f"  at most {cap:.2%} of the benign: high {high}, low {low}: {fit.fmt(pos, neg, sensitive)}")


if __name__ == "__main__":
    main()
