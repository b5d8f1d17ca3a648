# Sourced by scripts/run and scripts/test: a virtualenv in .venv with Enyal installed.
# scripts/test installs it editable with the test tools (the suite runs the working
# tree); scripts/run installs it as users get it, a regular wheel without extras: an
# editable install's import hook costs every CLI run and enyal-mcp start ~5 ms.
install_enyal() {
    local extra="${1:-}"
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
    fi
    local pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
    "${pip[@]}" --upgrade pip >/dev/null
    if [ -n "$extra" ]; then
        "${pip[@]}" -e ".[$extra]"
    else
        "${pip[@]}" .
    fi
}

# The service tests verify the generated units with systemd-analyze and activate the daemon
# through systemd-socket-activate (Linux only). Both come with Debian's systemd package.
install_test_system_tools() {
    [ "$(uname -s)" = Linux ] || return 0
    command -v systemd-analyze >/dev/null && command -v systemd-socket-activate >/dev/null && return 0
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null
    else
        echo "scripts/test: the service tests need systemd-analyze and systemd-socket-activate;" \
             "install them first (Debian/Ubuntu: sudo apt-get install systemd)" >&2
    fi
}
