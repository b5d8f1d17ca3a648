"""The texts the checks and the tokenizer are held to, from the data sets the repository
keeps: injection, secrets (held-out and the tests' own) and agents' memories."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Each file (JSON lines) and the key of its text
CORPORA = {
    "scripts/data/injection/labelled.jsonl": "text",
    "scripts/data/secrets_heldout/samples.jsonl": "text",
    "scripts/data/agent_memories.jsonl": "content",
    "tests/data/injection/labelled.jsonl": "text",
    "tests/data/secrets/positives.jsonl": "text",
    "tests/data/secrets/benign.jsonl": "text",
}


def read(corpora: dict[str, str] = CORPORA) -> list[str]:
    """Every text of `corpora`, in file order."""
    texts = []
    for path, key in corpora.items():
        for line in (ROOT / path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)[key])
    return texts
