"""A synthetic but realistic memory store and the questions agents ask of it.

Texts: coding-agent memories (facts, preferences, decisions, conventions, patterns)
from templates whose slots are filled from vocabularies of real tools, services and
reasons: ~10-35 words each, a vocabulary like a real store's, so FTS5 does real work.
About 60% carry metadata (`lang`, `reviewed`) so metadata filters have work to do.

Vectors, exactly: `base` distinct texts are embedded for real with the daemon's own
model (all-MiniLM-L6-v2 int8, the Embedder class), cached under the cache dir by a
hash of texts and model, in blocks of EMBED_BLOCK texts (a run cut short resumes,
and the full bench's first block is the 10k store's). A store of n <= base memories
holds only real embeddings of its own texts: the full bench embeds 100k, so its 10k
and 100k stores are entirely real. Only beyond `base` (the 1M store of --1m) is
memory i base text i mod `base` with its details varied (a ticket, a file, a
number), its vector that base text's embedding plus Gaussian noise, renormalised.
The noise is calibrated in the same run: it makes cos(memory, base) equal to the
mean cosine between real embeddings of a base text and of its detail variants
(`calibrate`).

Queries: distinct generated questions (`questions`), never repeated within a run,
so no timing rests on a warm path for the same text.
"""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from benchlib.vocab import (
    ACTIONS,
    COMPONENTS,
    CONTEXT,
    DATABASES,
    ENVS,
    ERRORS,
    FILES,
    FRAMEWORKS,
    LANGS,
    PEOPLE,
    PROJECTS,
    QUESTIONS,
    REASONS,
    SITUATIONS,
    STYLES,
    TAGS,
    TEMPLATES,
    TOOLS,
)

F32 = npt.NDArray[np.float32]
EmbedMany = Callable[[list[str]], F32]
Log = Callable[[str], None]

EMBED_BLOCK = 10_000
METADATA_SHARE = 0.6

CONTENT_TYPES = list(TEMPLATES)
MONTHS = ["Jan", "Mar", "May", "Aug", "Oct"]


def _slots(rng: random.Random) -> dict[str, Any]:
    component = rng.choice(COMPONENTS)
    slug = component.replace(" ", "_").lower()
    db, db2 = rng.sample(DATABASES, 2)
    fw, fw2 = rng.sample(FRAMEWORKS, 2)
    tool, tool2 = rng.sample(TOOLS, 2)
    return {
        "component": component,
        "slug": slug,
        "db": db,
        "db2": db2,
        "fw": fw,
        "fw2": fw2,
        "tool": tool,
        "tool2": tool2,
        "lang": rng.choice(LANGS),
        "file": rng.choice(FILES),
        "person": rng.choice(PEOPLE),
        "env": rng.choice(ENVS),
        "style": rng.choice(STYLES),
        "reason": rng.choice(REASONS),
        "situation": rng.choice(SITUATIONS),
        "action": rng.choice(ACTIONS),
        "error": rng.choice(ERRORS),
        "port": rng.choice([3000, 5432, 6379, 8000, 8080, 8443, 9090, 9200]),
        "minutes": rng.choice([5, 10, 15, 30, 60]),
        "seconds": rng.choice([5, 10, 30, 60]),
        "year": rng.choice([2021, 2022, 2023, 2024, 2025]),
        "dir": rng.choice(["src/", "services/", "internal/", "packages/", "apps/"]) + slug + "/",
        "envvar": slug.upper() + "_DATABASE_URL",
        "ticket": f"ENG-{rng.randint(100, 9999)}",
    }


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def base_texts(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """n distinct (content_type, text) pairs."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    while len(out) < n:
        ctype = rng.choice(CONTENT_TYPES)
        slots = _slots(rng)
        text = _cap(rng.choice(TEMPLATES[ctype]).format(**slots))
        if rng.random() < 0.5:  # half carry a second sentence of context, as real ones do
            text += " " + _cap(rng.choice(CONTEXT).format(**slots))
        if text not in seen:
            seen.add(text)
            out.append((ctype, text))
    return out


def variant(text: str, rng: random.Random) -> str:
    """The same memory with its details changed: what a store of many similar ones holds."""
    detail = rng.choice(
        [
            f" (see {rng.choice(['ENG', 'OPS', 'SEC'])}-{rng.randint(100, 99999)})",
            f" Noted in {rng.choice(PROJECTS).rsplit('/', 1)[1]}/{rng.choice(FILES)}.",
            f" Confirmed on {rng.randint(1, 28)} {rng.choice(MONTHS)}.",
            f" Applies to v{rng.randint(1, 9)}.{rng.randint(0, 30)} and later.",
        ]
    )
    return text + detail


def questions(n: int, seed: int = 11) -> list[str]:
    """n distinct questions (the templates allow ~5,000)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    for _ in range(n * 50):
        q = rng.choice(QUESTIONS).format(**_slots(rng))
        if q not in seen:
            seen.add(q)
            out.append(q)
            if len(out) == n:
                return out
    raise ValueError(f"the question templates do not give {n:,} distinct questions")


def embed_blocks(
    texts: list[str], embed_many: EmbedMany, cache_dir: Path, tag: str, log: Log
) -> F32:
    """embed_cached over blocks of EMBED_BLOCK texts, logging the rate of each one embedded."""
    parts: list[F32] = []
    for start in range(0, len(texts), EMBED_BLOCK):
        block = texts[start : start + EMBED_BLOCK]
        t0 = time.perf_counter()
        vecs, cached = _embed_cached(block, embed_many, cache_dir, tag)
        if not cached:
            dt = time.perf_counter() - t0
            log(f"embedded texts {start:,}-{start + len(block):,} ({len(block) / dt:.0f}/s)")
        parts.append(vecs)
    return np.concatenate(parts) if parts else np.zeros((0, 384), np.float32)


def embed_cached(texts: list[str], embed_many: EmbedMany, cache_dir: Path, tag: str) -> F32:
    return _embed_cached(texts, embed_many, cache_dir, tag)[0]


def _embed_cached(
    texts: list[str], embed_many: EmbedMany, cache_dir: Path, tag: str
) -> tuple[F32, bool]:
    """(vectors, whether they came from the cache)."""
    key = hashlib.sha256(("\n".join(texts) + "\0" + tag).encode()).hexdigest()[:20]
    path = cache_dir / f"emb-{key}.npy"
    if path.exists():
        cached: F32 = np.load(path)
        return cached, True
    vecs = embed_many(texts)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npy")
    np.save(tmp, vecs)
    tmp.replace(path)
    return vecs, False


def calibrate(base: F32, variants: F32) -> tuple[float, float]:
    """(mean cosine between base texts and their variants, noise sigma giving that cosine)."""
    cos = float(np.mean(np.sum(base * variants, axis=1)))
    cos = min(max(cos, 0.5), 0.999)
    # v = b + sigma * g with g ~ N(0, I/dim) has |g| ~ 1, so cos(v, b) ~ 1 / sqrt(1 + sigma^2)
    return cos, float(np.sqrt(1.0 / cos**2 - 1.0))


def entries(
    n: int, texts: list[tuple[str, str]], vecs: F32, sigma: float, seed: int = 3
) -> Iterator[tuple[dict[str, Any], F32]]:
    """n (entry fields, unit vector) pairs; the first len(texts) are the real ones."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    # its own stream, so adding metadata left every other field of a memory as it was
    mrng = random.Random(seed + 1)
    dim = vecs.shape[1]
    now = datetime.now(UTC)
    for i in range(n):
        b = i % len(texts)
        ctype, text = texts[b]
        vec = vecs[b]
        if i >= len(texts):
            text = variant(text, rng)
            noisy = vec + sigma * nrng.standard_normal(dim, dtype=np.float32) / np.sqrt(dim)
            vec = (noisy / np.linalg.norm(noisy)).astype(np.float32)
        r = rng.random()
        project = rng.choice(PROJECTS)
        if r < 0.15:
            level, path = "global", None
        elif r < 0.20:
            level, path = "workspace", "/home/dev/src"
        elif r < 0.30:
            level, path = "file", f"{project}/{rng.choice(FILES)}"
        else:
            level, path = "project", project
        created = now - timedelta(days=rng.uniform(0, 365), seconds=rng.uniform(0, 86400))
        fields = {
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "content": text,
            "content_type": ctype,
            "scope_level": level,
            "scope_path": path,
            "confidence": round(rng.uniform(0.6, 1.0), 2),
            "created_at": created,
            "access_count": int(nrng.geometric(0.5)) - 1,
            "source_type": "conversation",
            "tags": rng.sample(TAGS, rng.randint(0, 3)),
            "is_deprecated": rng.random() < 0.02,
            "metadata": (
                {"lang": mrng.choice(LANGS), "reviewed": mrng.random() < 0.5}
                if mrng.random() < METADATA_SHARE
                else {}
            ),
        }
        yield fields, vec
