"""The model's 8-bit build (embedder/build8.py): made for real by onnxruntime's kernel
in a child process, checked against the source model, cached, and never a reason for
the daemon not to start."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import DaemonProc, run_cli
from enyal_daemon.embedder import build8, cpu, onnx
from enyal_daemon.embedder.model_files import ModelFiles, locate
from enyal_daemon.embedder.onnx import Embedder

DATA = Path(__file__).resolve().parent.parent / "scripts" / "data"


def _read(name: str, field: str) -> list[str]:
    return [json.loads(line)[field] for line in (DATA / name).read_text().splitlines()]


def _texts() -> list[str]:
    memories = _read("agent_memories.jsonl", "content")
    queries = _read("agent_queries.jsonl", "query")
    # One past the model's 256-token window, so truncation is compared too.
    return memories[:300] + queries[:100] + [" ".join(memories[:40])]


@pytest.fixture(scope="module")
def source() -> ModelFiles:
    return locate(Path("/nonexistent"))


@pytest.fixture(scope="module")
def two_builds(source: ModelFiles, model_cache: Path) -> Embedder:
    """The embedder as it runs on a processor without an int8 dot product (cpu.py): short
    texts on the 8-bit build, long ones on the fp32 build. On one with it (this test's
    machine, maybe) the 8-bit build runs every text and the fp32 build is not loaded."""
    return build8.load(source, model_cache, int8_dot=False)


def test_build_agrees_with_the_source_model(source: ModelFiles, embedder: Any) -> None:
    assert embedder.files.runtime is not None
    assert embedder.files.runtime.name.startswith(source.model_sha256[:16])
    texts = _texts()
    ref = Embedder(source).embed_many(texts)
    got = embedder.embed_many(texts)
    cos = np.sum(ref * got, axis=1)
    assert cos.min() >= 0.999, f"worst agreement {cos.min():.4f}"
    # The same ranking: each query's nearest memory by the build is the source's.
    q_ref, q_got = ref[300:400], got[300:400]
    assert (np.argmax(q_ref @ ref[:300].T, 1) == np.argmax(q_got @ got[:300].T, 1)).mean() >= 0.98
    # Not the source file run again: the build is a different graph.
    assert not np.array_equal(ref, got)
    assert embedder.files.model_id == source.model_id  # stored vectors stay valid


def test_the_model_runs_without_the_fusions_that_cost_it_more(
    embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # onnxruntime would fuse each residual Add and the LayerNormalization after it into a
    # SkipLayerNormalization, whose kernel costs more CPU than the two (onnx.UNFUSED). Which
    # graph ran shows in the vectors: the same texts, the same runs, bit for bit.
    texts = _texts()[:64]
    made = embedder.embed_many(texts)
    assert np.array_equal(made, Embedder(embedder.files).embed_many(texts))
    monkeypatch.setattr(onnx, "UNFUSED", ())
    fused = Embedder(embedder.files).embed_many(texts)
    assert not np.array_equal(made, fused)  # the fusion is made unless it is named
    # Either is the same model: as near each other as the build is to the source.
    assert float(np.min(np.sum(made * fused, axis=1))) > 0.999


def test_a_fresh_cache_is_built_once_then_reused(
    source: ModelFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Builds of the layout before the tables file (each build holding its own copy of the
    # token table) are in the cache: their names are not this recipe's, so they are not
    # run and the builds are made again.
    models = tmp_path / "models"
    models.mkdir()
    stale = [build8.build_path(source, tmp_path, r) for r in ("mmnb8-b64", "fp32")]
    stale.append(models / f"{source.model_sha256[:16]}-ort1.0.0-{build8.RECIPE}.onnx")
    for path in stale:
        path.write_bytes(b"a build of the former layout")
    # Not this model's builds, nor builds at all: left alone.
    others = [models / "0123456789abcdef-ort1.0.0-fp32.onnx", models / "notes.txt"]
    for path in others:
        path.write_bytes(b"not ours to remove")
    first = build8.with_build(source, tmp_path)
    assert first.runtime == build8.build_path(source, tmp_path) and first.runtime.is_file()
    assert first.runtime not in stale and first.long_runtime not in stale
    # Once made, the builds this version does not run are removed (~150 MB of them).
    assert not [p for p in stale if p.exists()], "another recipe's build was left"
    assert all(p.exists() for p in others)
    assert build8.tables_path(source, tmp_path).is_file()
    assert not list(first.runtime.parent.glob(".build-*")), "the build's scratch was left"
    stamp = first.runtime.stat().st_mtime_ns

    def no_child(*_: object) -> None:
        raise AssertionError("a cached build was made again")

    monkeypatch.setattr(build8, "_build_in_child", no_child)
    again = build8.with_build(source, tmp_path)
    assert again.runtime == first.runtime and again.runtime.stat().st_mtime_ns == stamp


def test_a_cached_build_that_does_not_load_is_removed_and_the_source_runs(
    source: ModelFiles, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    target = build8.build_path(source, tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"not an onnx model")
    with caplog.at_level(logging.WARNING, logger="enyal.model"):
        e = build8.load(source, tmp_path)
    assert e.files.runtime is None and not target.exists()
    assert "does not load" in caplog.text
    assert e.embed("still embeds").shape == (384,)


def test_a_build_that_fails_leaves_the_source_model(
    source: ModelFiles, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A real failure in the child: the quantizer is handed a file that is not ONNX.
    bogus = tmp_path / "model.onnx"
    bogus.write_bytes(b"\x00" * 64)
    files = replace(source, model=bogus, model_sha256="0" * 64)
    with caplog.at_level(logging.WARNING, logger="enyal.model"):
        out = build8.with_build(files, tmp_path / "cache")
    assert out is files
    assert "running the source model" in caplog.text
    assert not build8.build_path(files, tmp_path / "cache").exists()


def test_turned_off_runs_the_source(
    source: ModelFiles, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(build8.OFF_ENV, "source")
    assert build8.with_build(source, tmp_path).runtime is None
    assert not (tmp_path / "models").exists()


def test_the_daemon_runs_the_build(daemon: DaemonProc, model_cache: Path) -> None:
    model = daemon.call("status")["model"]
    assert Path(model["runtime"]).parent == model_cache / "models"
    assert Path(model["path"]).name == "model.onnx" and model["runtime"] != model["path"]
    shown = run_cli("status")
    assert shown.code == 0 and f"running its 8-bit build {model['runtime']}" in shown.out
    # Both builds are named, each by its recipe: texts past SHORT_TOKENS run on the fp32 one,
    # but where the processor has an int8 dot product, on the 8-bit one too.
    assert Path(model["runtime"]).name.endswith(f"-{build8.RECIPE}.onnx")
    long = build8.RECIPE if cpu.int8_dot() else build8.LONG_RECIPE
    assert Path(model["long_runtime"]).name.endswith(f"-{long}.onnx")
    assert Path(model["long_runtime"]).parent == model_cache / "models"
    assert (f"long texts on {model['long_runtime']}" in shown.out) == (not cpu.int8_dot())


CPUINFO_X86 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma {}\nbugs\t\t: spectre_v1\n"
CPUINFO_ARM = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes crc32 {}\nCPU part\t: 0xd0c\n"


@pytest.mark.parametrize(
    ("cpuinfo", "has"),
    [
        (CPUINFO_X86.format(""), False),  # AVX2 alone: the machine the split was measured on
        (CPUINFO_X86.format("avx512f avx512_vnni"), True),
        (CPUINFO_X86.format("avx_vnni"), True),
        (CPUINFO_X86.format("avx512vnni_typo vnni"), False),  # whole flags only
        (CPUINFO_ARM.format("asimddp sha3"), True),
        (CPUINFO_ARM.format("sha3"), False),
        ("", False),
    ],
)
def test_an_int8_dot_product_is_read_from_the_cpus_flags(cpuinfo: str, has: bool) -> None:
    assert cpu.int8_dot(cpuinfo) is has


def test_with_an_int8_dot_product_the_8bit_build_runs_every_text(
    source: ModelFiles, model_cache: Path, two_builds: Embedder
) -> None:
    one = build8.load(source, model_cache, int8_dot=True)
    files = one.files
    assert files.runtime is not None and files.long_runtime == files.runtime
    eight = _alone(files, files.runtime)
    for text in (SHORT, LONG):
        assert np.abs(one.embed(text) - eight.embed(text)).max() < 1e-6
    both = one.embed_many([LONG, SHORT])
    assert np.abs(both[0] - eight.embed(LONG)).max() < 1e-5
    # Not the fp32 build's vector for a long text (which the split embedder gives).
    assert np.abs(one.embed(LONG) - two_builds.embed(LONG)).max() > 1e-4
    # One session: the fp32 build is not loaded at all (~43 MB of its MatMul weights).
    assert one._long is one._short


def test_where_the_build_is_kept(tmp_path: Path) -> None:
    import platformdirs

    from enyal_protocol import paths

    assert paths.resolve({"ENYAL_HOME": str(tmp_path)}).cache_dir == tmp_path / "cache"
    moved = {"ENYAL_HOME": str(tmp_path), "ENYAL_CACHE_DIR": str(tmp_path / "elsewhere")}
    assert paths.resolve(moved).cache_dir == tmp_path / "elsewhere"
    assert paths.resolve({}).cache_dir == Path(platformdirs.user_cache_dir("enyal", False))


def test_the_build_needs_neither_onnx_nor_onnx_ir(source: ModelFiles, tmp_path: Path) -> None:
    # The child process as the daemon starts it, with both packages made unimportable
    # (a None in sys.modules makes `import onnx` raise): they are not dependencies.
    target, long_target = tmp_path / "model.onnx", tmp_path / "fp32.onnx"
    tables = tmp_path / "tables.data"
    code = (
        "import sys, runpy; sys.modules['onnx'] = sys.modules['onnx_ir'] = None; "
        f"sys.argv = ['build8', {str(source.model)!r}, {str(source.tokenizer)!r}, "
        f"{str(target)!r}, {str(long_target)!r}, {str(tables)!r}]; "
        "runpy.run_module('enyal_daemon.embedder.build8', run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout) >= build8.MIN_AGREEMENT
    assert target.is_file() and long_target.is_file() and tables.is_file()


def test_the_wire_format_reads_and_writes_a_model_unchanged(source: ModelFiles) -> None:
    # protowire keeps every field as read, so a model decoded and encoded again is the
    # same bytes: whatever the rewrite does not touch reaches the build intact.
    from enyal_daemon.embedder import matmul8, protowire

    data = source.model.read_bytes()
    model = protowire.decode(data)
    assert protowire.encode(model) == data
    graph_field = protowire.first(model, matmul8.MODEL_GRAPH)
    assert graph_field is not None and not isinstance(graph_field.value, int)
    graph = protowire.decode(graph_field.value)
    nodes = [protowire.decode(f.value) for f in protowire.each(graph, matmul8.GRAPH_NODE)]
    assert "MatMul" in {protowire.text(n, matmul8.NODE_OP) for n in nodes}


LONG = (
    "We chose SQLite in WAL mode so that readers never block the single writer; the "
    "daemon keeps one connection for writes and a pool of readers for recalls."
)
SHORT = "deploy script"


def _alone(files: ModelFiles, runtime: Path | None) -> Any:
    """One build run on its own: an embedder whose short and long texts both go to it."""
    return Embedder(replace(files, runtime=runtime, long_runtime=runtime))


def test_each_text_runs_on_the_build_for_its_length(two_builds: Embedder) -> None:
    from enyal_daemon.embedder.onnx import SHORT_TOKENS

    files = two_builds.files
    assert files.long_runtime is not None and build8.LONG_RECIPE in files.long_runtime.name
    assert files.long_runtime.parent == files.runtime.parent  # both in the cache dir
    assert two_builds.window_tokens(SHORT) <= SHORT_TOKENS < two_builds.window_tokens(LONG)
    eight, fp32 = _alone(files, files.runtime), _alone(files, files.long_runtime)
    long, short = two_builds.embed(LONG), two_builds.embed(SHORT)
    # Each vector is its own build's, and not the other build's (they differ past noise).
    assert np.abs(long - fp32.embed(LONG)).max() < 1e-6
    assert np.abs(long - eight.embed(LONG)).max() > 1e-4
    assert np.abs(short - eight.embed(SHORT)).max() < 1e-6
    assert np.abs(short - fp32.embed(SHORT)).max() > 1e-4
    # In a batch each text still goes by its own length, not by the batch's.
    both = two_builds.embed_many([LONG, SHORT, LONG + " And a third one."])
    assert np.abs(both[0] - long).max() < 1e-5 and np.abs(both[1] - short).max() < 1e-5
    assert np.abs(both[2] - fp32.embed(LONG + " And a third one.")).max() < 1e-5


def _cache_with(tmp_path: Path, good: Path) -> Path:
    """A cache dir holding a copy of the build `good` and of the tables file it reads
    (made once by the session's cache)."""
    cache = tmp_path / "cache"
    (cache / "models").mkdir(parents=True)
    for name in {good.name} | {r.location for r in _references(good).values()}:
        (cache / "models" / name).write_bytes((good.parent / name).read_bytes())
    return cache


def _references(model: Path) -> dict[str, Any]:
    from enyal_daemon.embedder import external_data

    return external_data.references(model.read_bytes())


@pytest.mark.parametrize("broken", ["runtime", "long_runtime"])
def test_a_build_of_either_length_that_does_not_load_leaves_the_source_for_its_texts(
    broken: str,
    two_builds: Embedder,
    source: ModelFiles,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    good_field = "long_runtime" if broken == "runtime" else "runtime"
    good, bad = getattr(two_builds.files, good_field), getattr(two_builds.files, broken)
    cache = _cache_with(tmp_path, good)
    (cache / "models" / bad.name).write_bytes(b"not an onnx model")
    with caplog.at_level(logging.WARNING, logger="enyal.model"):
        e = build8.load(source, cache, int8_dot=False)
    assert "does not load" in caplog.text and not (cache / "models" / bad.name).exists()
    assert getattr(e.files, broken) is None and getattr(e.files, good_field) is not None
    # The texts of the broken build's length now get the source model's vectors, the
    # others still their build's.
    ref = Embedder(source)
    broken_text, good_text = (SHORT, LONG) if broken == "runtime" else (LONG, SHORT)
    assert np.abs(e.embed(broken_text) - ref.embed(broken_text)).max() < 1e-6
    assert np.abs(e.embed(good_text) - two_builds.embed(good_text)).max() < 1e-6


def _mapping(address: int) -> tuple[str, int]:
    """(path, resident kB) of this process's mapping holding `address` (/proc/self/smaps);
    the path is "" for anonymous memory."""
    found: tuple[str, int] | None = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            found = (head[5] if len(head) > 5 else "", 0) if lo <= address < hi else None
        elif found is not None and head[0] == "Rss:":
            return found[0], int(head[1])
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_the_shared_table_is_read_in_place_and_a_trim_drops_its_pages(two_builds: Embedder) -> None:
    # The 47 MB token-embedding table both builds hold is not copied into the heap: both
    # sessions read it from a read-only map of the tables file, and heap.trim drops the
    # pages runs have read from the process (they stay in the page cache). A mechanism,
    # not an RSS figure: the mapping's own resident size before and after the trim.
    import ctypes

    from enyal_daemon import heap
    from enyal_daemon.embedder import shared_weights

    files = two_builds.files
    shared = shared_weights.common(files.runtime, files.long_runtime)
    assert shared, "the builds share no table"
    for value in shared.values():
        nbytes = int(np.prod(value.shape())) * 4
        ptr = value.data_ptr()
        path, _ = _mapping(ptr)
        assert Path(path).name.endswith(f"-{build8.TABLES}.data")
        assert Path(path).parent == files.long_runtime.parent
        ctypes.string_at(ptr, nbytes)  # every page read, as runs over many texts would
        assert _mapping(ptr)[1] > 0
        heap.trim()
        assert _mapping(ptr)[1] == 0
    # Vectors are unchanged by it: test_each_text_runs_on_the_build_for_its_length
    # compares the two sessions sharing the table with each build run alone (no sharing).


def test_one_tokenizer_reads_the_window_and_counts_the_whole(embedder: Any) -> None:
    # The model's window (MAX_TOKENS, [CLS] and [SEP] included) and the untruncated count
    # come from one tokenizer: a second cost ~8 MB of the daemon's RSS (issue 30).
    from tokenizers import Tokenizer

    from enyal_daemon.embedder.onnx import MAX_TOKENS

    assert sum(isinstance(v, Tokenizer) for v in vars(embedder).values()) == 1
    long = LONG + " " + " ".join([LONG] * 20)
    ends = embedder.token_ends(long)
    assert embedder.window_tokens(long) == len(ends) + 2 > MAX_TOKENS
    assert embedder.count_tokens([long, SHORT]) == [len(ends), len(embedder.token_ends(SHORT))]
    # A text past the window is read to its first MAX_TOKENS - 2 tokens, alone or batched.
    cut = long[: ends[MAX_TOKENS - 3]]
    assert np.abs(embedder.embed(long) - embedder.embed(cut)).max() < 1e-6
    both = embedder.embed_many([long, SHORT])
    assert np.abs(both[0] - embedder.embed(cut)).max() < 1e-5
    assert np.abs(both[1] - embedder.embed(SHORT)).max() < 1e-5


def test_the_builds_keep_the_shared_table_once_in_the_tables_file(two_builds: Embedder) -> None:
    # Neither build's file holds the token table: both reference the same bytes of the
    # tables file beside them, so loading a build does not read and parse a copy.
    from enyal_daemon.embedder import external_data

    files = two_builds.files
    short, long = _references(files.runtime), _references(files.long_runtime)
    assert short and short == long
    tables = {files.long_runtime.parent / r.location for r in long.values()}
    assert {p.name for p in tables} == {
        build8.tables_path(two_builds.files, files.long_runtime.parent.parent).name
    }
    eight, fp32 = (
        external_data.inline_floats(p.read_bytes()) for p in (files.runtime, files.long_runtime)
    )
    assert not (set(eight) | set(fp32)) & set(long)
    # Nor any other big tensor held alike: each is kept once.
    alike = [
        n for n, t in fp32.items() if eight.get(n) == t and len(t[1]) >= external_data.MIN_BYTES
    ]
    assert not alike


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_sessions_handed_the_table_never_map_the_tables_file(two_builds: Embedder) -> None:
    # In a fresh process (this one holds maps of other tests' sessions): the embedder's
    # two sessions leave one map of the tables file, the shared one; a session of the
    # fp32 build loaded alone reads the file itself (onnxruntime maps it), a second one.
    files = two_builds.files
    code = f"""
import dataclasses
from pathlib import Path
from enyal_daemon.embedder import onnx
from enyal_daemon.embedder.model_files import ModelFiles
files = ModelFiles(Path({str(files.model)!r}), Path({str(files.tokenizer)!r}), "", "", "",
                   Path({str(files.runtime)!r}), Path({str(files.long_runtime)!r}))
def maps():
    return sum("{build8.TABLES}.data" in line for line in open("/proc/self/maps"))
e = onnx.Embedder(files)
e.embed({LONG!r}); e.embed({SHORT!r})
both = maps()
alone = onnx._session(files.long_runtime, {{}})
print(both, maps())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "2"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_one_build_alone_reads_its_table_from_a_map_a_trim_drops(
    source: ModelFiles, model_cache: Path
) -> None:
    # Where the 8-bit build runs every text (an int8 dot product: one session), its table
    # is handed to the session from our map as the two builds' is. Left to onnxruntime,
    # which maps the tables file itself, the pages runs read stayed in the daemon's RSS
    # whatever it trimmed (42 MB after importing SciFact abstracts at 100k, issue 30).
    # In a fresh process: the resident kB of the tables file's maps after long texts, then
    # after a trim.
    one = build8.load(source, model_cache, int8_dot=True).files
    assert one.runtime is not None and one.long_runtime == one.runtime
    code = f"""
from pathlib import Path
from enyal_daemon import heap
from enyal_daemon.embedder import onnx
from enyal_daemon.embedder.model_files import ModelFiles
run = Path({str(one.runtime)!r})
files = ModelFiles(Path({str(one.model)!r}), Path({str(one.tokenizer)!r}), "", "", "", run, run)
def resident():
    kb, mine = 0, False
    for line in open("/proc/self/smaps"):
        head = line.split()
        if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            mine = len(head) > 5 and head[5].endswith("-{build8.TABLES}.data")
        elif mine and head[0] == "Rss:":
            kb += int(head[1])
    return kb
e = onnx.Embedder(files)
e.embed_many([{LONG!r} * 6, {LONG!r} * 3 + " And more.", {SHORT!r}])
ran = resident()
heap.trim()
print(ran, resident())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    ran, trimmed = (int(x) for x in done.stdout.split())
    assert ran > 0 and trimmed == 0
