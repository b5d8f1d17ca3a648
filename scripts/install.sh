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
# The Neovim client's tests run a real headless `nvim`: Debian's neovim package (0.7 on
# bookworm, the oldest release the plugin supports). The web view's browser test drives
# Debian's chromium through Playwright (whose own browser download cannot be used here).
# The team hub's tests start throwaway clusters with Debian's postgresql binaries
# (initdb, pg_ctl under /usr/lib/postgresql/*/bin); never the cluster the package may start.
install_test_system_tools() {
    [ "$(uname -s)" = Linux ] || return 0
    local wanted=()
    command -v systemd-analyze >/dev/null && command -v systemd-socket-activate >/dev/null \
        || wanted+=(systemd)
    command -v nvim >/dev/null || wanted+=(neovim)
    [ -x /usr/bin/chromium ] || wanted+=(chromium)
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || wanted+=(postgresql)
    [ ${#wanted[@]} -eq 0 ] && return 0
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${wanted[@]}" >/dev/null
    else
        echo "scripts/test: the service tests need systemd-analyze and systemd-socket-activate," \
             "the Neovim client's tests need nvim, the web view's /usr/bin/chromium," \
             "the hub's tests PostgreSQL's initdb;" \
             "install them first" \
             "(Debian/Ubuntu: sudo apt-get install ${wanted[*]})" >&2
    fi
}

# The Claude Code plugin's tests run the real `claude` CLI (plugin validate, mcp list):
# npm's @anthropic-ai/claude-code, which runs its bundled native binary, installed into
# .tools/claude-code (ignored by git) where tests/test_plugin.py looks for it. Pinned: the
# release the tests were written against (the newest that runs on Debian's Node 20). Without
# npm those tests skip and say why.
CLAUDE_CODE_DIR=.tools/claude-code
install_test_claude_code() {
    [ -x "$CLAUDE_CODE_DIR/node_modules/.bin/claude" ] && return 0
    if ! command -v npm >/dev/null; then
        echo "scripts/test: the plugin's tests need npm for Claude Code's CLI; they will skip" >&2
        return 0
    fi
    mkdir -p "$CLAUDE_CODE_DIR"
    npm install --silent --no-audit --no-fund --prefix "$CLAUDE_CODE_DIR" \
        "@anthropic-ai/claude-code@2.1.197" >/dev/null \
        || echo "scripts/test: npm could not install @anthropic-ai/claude-code" >&2
}

# The MCP Bundle's tests (tests/test_bundles.py) also run the real `mcpb` CLI (npm's
# @anthropic-ai/mcpb: `mcpb unpack`, `mcpb validate`, offline), installed into .tools/mcpb;
# scripts/build_mcpb packs with it when it is there. Pinned, as Claude Code's is. Without
# npm that one test skips; the manifest is still checked against the stored schema.
MCPB_DIR=.tools/mcpb
install_test_mcpb() {
    [ -x "$MCPB_DIR/node_modules/.bin/mcpb" ] && return 0
    command -v npm >/dev/null || return 0
    mkdir -p "$MCPB_DIR"
    npm install --silent --no-audit --no-fund --prefix "$MCPB_DIR" "@anthropic-ai/mcpb@2.1.2" \
        >/dev/null || echo "scripts/test: npm could not install @anthropic-ai/mcpb" >&2
}
