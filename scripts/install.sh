# Sourced by scripts/run and scripts/test: a virtualenv in .venv with Enyal installed
# (editable), plus the test tools when asked. Re-running is cheap: pip skips what is there.
install_enyal() {
    local extra="${1:-}"
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
    fi
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
    if [ -n "$extra" ]; then
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[$extra]"
    else
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
    fi
}
