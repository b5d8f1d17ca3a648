"""What the processor offers the 8-bit build's kernel: an int8 dot-product instruction
(x86's AVX-VNNI or AVX-512 VNNI, Arm's dot product), with which onnxruntime's 8-bit
MatMul is cheaper than fp32's at every width, or none (AVX2 alone), where it costs more
arithmetic past a query's length (build8.py says what each decides)."""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
# The flags Linux lists for the instruction: x86's two VNNI extensions, Arm's SDOT/UDOT.
INT8_DOT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "asimddp"})


def int8_dot(cpuinfo: str | None = None) -> bool:
    """Whether the processor has an int8 dot-product instruction, read from
    /proc/cpuinfo's first flags line (`cpuinfo`: its text, for tests). False where there
    is no such file (macOS): the choice measured without the instruction stands."""
    if cpuinfo is None:
        try:
            cpuinfo = CPUINFO.read_text()
        except OSError:
            return False
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):  # x86, Arm
            return not INT8_DOT_FLAGS.isdisjoint(value.split())
    return False
