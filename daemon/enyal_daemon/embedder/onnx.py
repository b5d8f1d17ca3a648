"""all-MiniLM-L6-v2 on onnxruntime: tokenize, run, mean-pool, L2-normalise.

Choices (measured, see docs/ARCHITECTURE.md):
- one intra-op thread and no spinning: the daemon runs two inferences at once on
  two cores instead of one inference fighting itself for both;
- the CPU memory arena off: with it, 256-token batches grow the process by a GB
  and keep it;
- no padding for a single text (a 12-token query is 4x faster than at 128), and
  dynamic padding to the longest text in a batch, batches sorted by length and
  bounded by tokens as well as by texts, and by how much of them is padding;
- two builds of the same model (build8.py), chosen by a text's length: the 8-bit
  build reads a quarter of the weights' bytes, which is what a short query's run is
  bound by, but its int8 kernel costs more arithmetic than fp32's on a processor
  without an int8 dot product (AVX2 alone), so there past SHORT_TOKENS the fp32 build
  takes less CPU; with one (VNNI) the 8-bit build is the cheaper at every length and
  runs every text (build8.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

from . import shared_weights, token_count
from .model_files import DIM, ModelFiles

MAX_TOKENS = 256
# A query is read to its first QUERY_TOKENS tokens ([CLS] and [SEP] included): the window
# all-MiniLM-L6-v2 was trained on, and attention costs the square of the width, so a
# prompt pasted whole (a log, a traceback) took 165 ms of CPU at 256 tokens against 86 at
# 128 and 13 at 18 (docs/ARCHITECTURE.md, "What a prompt's recall costs"). Memories are
# still read to MAX_TOKENS, and a long one by its passages as well.
QUERY_TOKENS = 128
BATCH_SIZE = 32
# Rows x padded width per inference. Attention's activations grow with the square of the
# width, and the process keeps the heap they took. Measured on 400 SciFact abstracts
# (256 tokens each): unbounded 11.2 texts/s at a 1,059 MB peak; 512 tokens 21.1/s at
# 356 MB. Short memories (~20 tokens) embed at the same ~265/s either way.
BATCH_TOKENS = 512
# Rows x padded width squared per inference: a run's transient heap grows with it (the
# attention's rows of width x width), and the process peaks at what two runs at once
# take. Measured on the fp32 build, one run: 1 x 256 tokens +71 MB, 2 x 256 +152, 4 x
# 128 +93, 8 x 64 +32 (docs/ARCHITECTURE.md, "Where the daemon's memory goes"). At one
# full window's worth, only texts of more than ~181 tokens run alone instead of in pairs
# (a short memory's run is cut by BATCH_TOKENS long before), at no cost in CPU a text.
ATTENTION_CELLS = MAX_TOKENS * MAX_TOKENS
# At most this share of a run's width is padding. The model's work grows with the padded
# width, while a run of fewer texts costs each only a little more (docs/ARCHITECTURE.md,
# "Where an import's time goes"): a text waits for a run of about its own width rather
# than pad to a wider one. Model CPU a text, 200 short memories 18.3 -> 16.6 ms, SciFact
# abstracts with their passages 361 -> 325 ms.
MAX_PAD = 0.05
# Texts of at most this many tokens ([CLS] and [SEP] included) run on the 8-bit build,
# longer ones on the fp32 build. Thread CPU a text on this machine, min of 30 alternated
# runs, 8-bit against fp32 (docs/ARCHITECTURE.md, "The model"): 16 tokens alone 8.97
# against 7.81 ms, 23 tokens 11.8 against 10.0, and in runs of 8 or more fp32 is the
# cheaper at every width; from 8 to 14 tokens alone the two are within this loaded
# machine's noise (8: 5.0 against 5.6; 12: 7.5 against 6.6), and a quieter one measured
# the 8-bit build faster at ~11 (3.4 against 5.3 ms). A text's own length decides,
# never its batch's, so a text gets the same vector whichever request embeds it.
SHORT_TOKENS = 12
# Up to this many texts are counted one by one on the calling thread, not by encode_batch:
# that hands them to the tokenizer's own thread pool and waits, and on a loaded machine
# the wait for its threads to get a core was most of a recall's budget packing (a hook's
# 8 hits: 2.4 ms of wall for 0.16 of the thread's CPU; counted here 0.26 ms of CPU).
SERIAL_COUNT = 16
# Graph fusions onnxruntime would make that cost more CPU than the nodes they replace.
# Its fused SkipLayerNormalization (the residual Add and the LayerNormalization after it,
# 12 a run) took 16% of a passage run's kernel time on the 8-bit build, where the Add and
# the LayerNormalization it replaces take ~4%. Thread CPU a text without it, min of 5
# alternated rounds (docs/ARCHITECTURE.md, "Where an import's time goes"): a SciFact
# abstract's passages 40.6 -> 34.7 ms, 8 x 64 tokens 7.16 -> 6.08, a 23-token memory
# 3.04 -> 2.65, an 11-token query 1.53 -> 1.44; on the fp32 build 5-11% less at every
# width. The two compute the same to float rounding, but the 8-bit build rounds each
# MatMul's input to 8 bits, which turns that into vectors a cosine of >= 0.9997 apart
# (each as near the source model's as the other): a store keeps the vectors it has.
UNFUSED = ("SkipLayerNormFusion",)

Vectors = npt.NDArray[np.float32]


class Embedder:
    dim = DIM

    def __init__(self, files: ModelFiles) -> None:
        self.files = files
        # Untruncated: budgets count what an agent is shown, which is not cut at the
        # model's window; the window is cut from the whole text's ids (_window). One
        # tokenizer, not a truncating one beside it: each costs ~8 MB of RSS (issue 30).
        self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        # What the tokenizer puts around a text's own ids ([CLS] before, [SEP] after): a
        # text whose ids are known (embed_many's `ids`) is run as the tokenizer would run it.
        self._bracket = self._tokenizer.encode("").ids
        # Counts of plain ASCII texts from their words' kept counts (token_count.py)
        self._count = token_count.TokenCounter(self._tokenizer, self._tokenized_counts)
        short = files.runtime or files.model
        long = files.long_runtime or files.model
        # Both builds come from one folded graph: their embedding tables are one copy. One
        # build alone (a processor with an int8 dot product) is handed its table the same
        # way: onnxruntime would map the tables file itself, and the pages its runs read
        # (up to the table's 47 MB after an import of long texts) would stay in the RSS;
        # from our map heap.trim drops them (issue 30).
        self._shared = shared_weights.common(short, long)
        self._short = _session(short, self._shared)
        self._long = self._short if long == short else _session(long, self._shared)
        self._input_names = {i.name for i in self._short.get_inputs()}

    def warm_up(self) -> None:
        """One run on each session: the first builds onnxruntime's kernels. And the
        tokenizer's thread pool started by this thread: it is started by its first batch,
        at the CPU priority of the thread asking, and a hub catch-up's niced thread
        (niced.py) asking first would leave it niced for the process's life."""
        self._tokenizer.encode_batch_fast(["warm", "up"])
        ids = np.ones((1, SHORT_TOKENS + 1), dtype=np.int64)
        self._run(ids[:, :SHORT_TOKENS], ids[:, :SHORT_TOKENS])
        self._run(ids, ids)

    def window_tokens(self, text: str) -> int:
        """Tokens the model would read of `text` if it had no window: [CLS] and [SEP]
        included, so a text fits when this is at most MAX_TOKENS."""
        return len(self._tokenizer.encode(text, add_special_tokens=True).ids)

    def embed(self, text: str) -> Vectors:
        """One text -> a (384,) unit vector."""
        ids = np.asarray([_window(self._tokenizer.encode(text).ids)], dtype=np.int64)
        vec: Vectors = self._run(ids, np.ones_like(ids))[0]
        return vec

    def embed_many(
        self, texts: list[str], given: Sequence[list[int] | None] | None = None
    ) -> Vectors:
        """Many texts -> (n, 384), in input order; batched with dynamic padding. `given`:
        each text's token ids when they are known (`token_ids`' of it: a passage's are its
        sentences', passages.tokenized), so it is not tokenized again; None where not."""
        return self._embed_many(texts, given, None)

    def embed_many_states(
        self, texts: list[str], given: Sequence[list[int] | None] | None = None
    ) -> tuple[Vectors, list[Vectors]]:
        """`embed_many`, and each text's token states from the same runs: the model's
        last_hidden_state over the text's own tokens ([CLS] and [SEP] included, padding
        not), (tokens, 384) each, which the vector mean-pools. Read by the injection
        head (hygiene/head.py), which needs the word order the pooling loses."""
        states: list[Vectors] = [np.empty((0, DIM), dtype=np.float32)] * len(texts)
        return self._embed_many(texts, given, states), states

    def _embed_many(
        self,
        texts: list[str],
        given: Sequence[list[int] | None] | None,
        states: list[Vectors] | None,
    ) -> Vectors:
        out = np.empty((len(texts), DIM), dtype=np.float32)
        if not texts:
            return out
        known = given if given is not None else [None] * len(texts)
        todo = [t for t, have in zip(texts, known, strict=True) if have is None]
        made = iter(self._tokenizer.encode_batch_fast(todo) if todo else [])
        first, last = self._bracket[:1], self._bracket[1:]
        windows = [
            _window(next(made).ids if have is None else first + have + last) for have in known
        ]
        lengths = [len(w) for w in windows]
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        # Short and long texts never share a run: each goes to its own length's build.
        cut = sum(1 for i in order if lengths[i] <= SHORT_TOKENS)
        for chunk in _batches(order[:cut], lengths) + _batches(order[cut:], lengths):
            width = max(lengths[i] for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                n = lengths[i]
                ids[row, :n] = windows[i]
                mask[row, :n] = 1
            if states is None:
                out[chunk] = self._run(ids, mask)
                continue
            hidden = self._hidden(ids, mask)
            out[chunk] = _pooled(hidden, mask)
            for row, i in enumerate(chunk):
                states[i] = hidden[row, : lengths[i]].copy()
        return out

    def count_tokens(self, texts: list[str]) -> list[int]:
        """How many of the model's tokens each text is, whole (not cut at MAX_TOKENS)."""
        return self._count(texts)

    def _tokenized_counts(self, texts: list[str]) -> list[int]:
        """`count_tokens` by the tokenizer itself."""
        return [len(ids) for ids in self.token_ids(texts)]

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids, whole (not cut at MAX_TOKENS), without [CLS] and [SEP]."""
        if not texts:
            return []
        if len(texts) <= SERIAL_COUNT:
            return [self._tokenizer.encode(t, add_special_tokens=False).ids for t in texts]
        # encode_batch_fast here and wherever only ids are read: the same ids, without the
        # character offsets of every token that encode_batch works out too. A SciFact
        # abstract's sentences, tokenized to pack its passages, 0.56 -> 0.45 ms of process
        # CPU (docs/ARCHITECTURE.md, "Where an import's time goes", import34).
        fast = self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)
        return [e.ids for e in fast]

    def query_window(self, text: str) -> str:
        """`text` cut to what the model reads of it as a query: its first QUERY_TOKENS
        tokens. A text of fewer characters than that is whole (no token is shorter than
        a character), so a short query is not even counted."""
        room = QUERY_TOKENS - 2  # [CLS] and [SEP]
        if len(text) <= room:
            return text
        ends = self.token_ends(text)
        return text if len(ends) <= room else text[: ends[room - 1]]

    def token_ends(self, text: str) -> list[int]:
        """The character offset where each of the text's tokens ends, in order: text[:ends[k-1]]
        is the text's first k tokens."""
        return [end for _, end in self._tokenizer.encode(text, add_special_tokens=False).offsets]

    def _run(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> Vectors:
        return _pooled(self._hidden(ids, mask), mask)

    def _hidden(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> Vectors:
        """The run's last_hidden_state, (texts, width, 384)."""
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        # A run's width is its longest text's length (padding is to the longest).
        session = self._short if ids.shape[1] <= SHORT_TOKENS else self._long
        (hidden,) = session.run(["last_hidden_state"], feeds)
        result: Vectors = hidden
        return result


def _pooled(hidden: Vectors, mask: npt.NDArray[np.int64]) -> Vectors:
    """Mean of the unmasked tokens' states, as a unit vector: each text's vector."""
    m = mask[:, :, None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    result: Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
    return result


def _window(ids: list[int]) -> list[int]:
    """A text's ids ([CLS] first, [SEP] last) cut to the model's MAX_TOKENS as the
    tokenizer's own truncation cuts one sequence: its first MAX_TOKENS - 2 tokens, then
    [SEP]."""
    return ids if len(ids) <= MAX_TOKENS else ids[: MAX_TOKENS - 1] + ids[-1:]


def _session(path: Path, shared: dict[str, ort.OrtValue]) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.enable_cpu_mem_arena = False
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    for name, value in shared.items():
        opts.add_initializer(name, value)
    return ort.InferenceSession(
        str(path),
        sess_options=opts,
        providers=["CPUExecutionProvider"],
        disabled_optimizers=list(UNFUSED),
    )


def _batches(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Consecutive runs of `order` (sorted by length) of at most BATCH_SIZE texts,
    BATCH_TOKENS padded tokens and ATTENTION_CELLS, none padded by more than MAX_PAD of
    its width."""
    out: list[list[int]] = []
    chunk: list[int] = []
    narrowest = 0
    for i in order:
        width = max(lengths[i], 1)  # sorted: this text is the widest so far
        if chunk and (
            len(chunk) == BATCH_SIZE
            or (len(chunk) + 1) * width > BATCH_TOKENS
            or (len(chunk) + 1) * width * width > ATTENTION_CELLS
            or narrowest < width * (1 - MAX_PAD)
        ):
            out.append(chunk)
            chunk = []
        if not chunk:
            narrowest = width
        chunk.append(i)
    if chunk:
        out.append(chunk)
    return out
