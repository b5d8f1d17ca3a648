-- Where the daemon's socket is: the rules of client/enyal_protocol/paths.py, ported.
--
--   1. $ENYAL_SOCKET (made absolute against the cwd, `~` expanded);
--   2. else <runtime dir>/enyal.sock, where the runtime dir is
--        $ENYAL_HOME/run                          when ENYAL_HOME is set,
--        $XDG_RUNTIME_DIR/enyal                   on Linux when it is set,
--        <temp dir>/enyal-<uid>                   on Linux without it (temp dir: $TMPDIR,
--                                                 $TEMP, $TMP if a writable folder, else /tmp),
--        $XDG_RUNTIME_DIR/enyal if it is private, else ~/Library/Caches/TemporaryItems/enyal
--                                                 on macOS (platformdirs);
--   3. when that path is longer than sun_path allows (107 bytes, 103 on macOS), the short
--      <temp dir>/enyal-<uid>/<first 16 hex of sha256(runtime dir)>.sock instead.
-- <temp dir>/enyal-<uid> made first by another user (or a symlink there) is passed over for
-- ${XDG_STATE_HOME:-~/.local/state}/enyal/run, which nobody else can write.
--
-- M.check_socket(path) is the client's trust check before connecting (paths.py's
-- check_socket): the folder must be ours or root's and writable by nobody else, the socket
-- a socket and ours. libuv gives no peer credentials, so the plugin relies on these: only
-- the socket's owner can have made it (the Python clients also check SO_PEERCRED).
--
-- A daemon found another way (the database's lock file names a daemon started from
-- another runtime folder) is reached through `enyal status --json`, which reports the
-- socket it answered on: see enyal.client.
local M = {}

M.SOCKET_NAME = 'enyal.sock'

local uv = vim.loop

local function is_darwin()
  return uv.os_uname().sysname == 'Darwin'
end

function M.socket_path_max()
  return is_darwin() and 103 or 107
end

-- pathlib's normalisation: repeated slashes and `.` parts dropped, no trailing slash,
-- `..` kept (Path does not collapse it). A leading `//` (exactly two) is kept as POSIX says.
local function normalize(path)
  local lead = ''
  if path:sub(1, 2) == '//' and path:sub(3, 3) ~= '/' then
    lead = '//'
  elseif path:sub(1, 1) == '/' then
    lead = '/'
  end
  local parts = {}
  for part in path:gmatch('[^/]+') do
    if part ~= '.' then
      table.insert(parts, part)
    end
  end
  local joined = lead .. table.concat(parts, '/')
  if joined == '' then
    return '.'
  end
  return joined
end

-- os.path.abspath: absolute and normalised, `..` collapsed.
local function abspath(path, cwd)
  if path:sub(1, 1) ~= '/' then
    path = cwd .. '/' .. path
  end
  local parts = {}
  for part in path:gmatch('[^/]+') do
    if part == '..' then
      table.remove(parts)
    elseif part ~= '.' then
      table.insert(parts, part)
    end
  end
  return '/' .. table.concat(parts, '/')
end

-- Path(p).expanduser().absolute()
local function absolute(path, env, cwd)
  if path == '~' or path:sub(1, 2) == '~/' then
    path = (env.HOME or uv.os_homedir()) .. path:sub(2)
  end
  if path:sub(1, 1) ~= '/' then
    path = cwd .. '/' .. path
  end
  return normalize(path)
end

local function is_writable_dir(path)
  local st = uv.fs_stat(path)
  return st ~= nil and st.type == 'directory' and uv.fs_access(path, 'W') == true
end

-- tempfile.gettempdir()
function M.temp_dir(env, cwd)
  for _, name in ipairs({ 'TMPDIR', 'TEMP', 'TMP' }) do
    local dir = env[name]
    if dir and dir ~= '' and is_writable_dir(dir) then
      return abspath(dir, cwd)
    end
  end
  for _, dir in ipairs({ '/tmp', '/var/tmp', '/usr/tmp' }) do
    if is_writable_dir(dir) then
      return dir
    end
  end
  return abspath(cwd, cwd)
end

local function uid()
  return uv.getuid()
end

local function private_dir(path)
  local st = uv.fs_stat(path)
  if st == nil then
    return true
  end
  return st.uid == uid() and st.type == 'directory' and (st.mode % 512) % 64 == 0
end

-- Whether `folder` exists as anything but a real folder of this user: in the shared temp
-- dir another user may have made it first, to listen in our place or to lock us out.
local function taken(folder)
  local st = uv.fs_lstat(folder)
  return st ~= nil and (st.type ~= 'directory' or st.uid ~= uid())
end

-- <temp dir>/enyal-<uid>, or the folder in the user's home when another user took it.
function M.private_temp_dir(env, cwd)
  local folder = M.temp_dir(env, cwd) .. '/enyal-' .. uid()
  if not taken(folder) then
    return folder
  end
  local state = env.XDG_STATE_HOME
  if not state or state == '' then
    state = (env.HOME or uv.os_homedir()) .. '/.local/state'
  end
  return normalize(state .. '/enyal/run')
end

local WHAT_TO_DO = 'remove it, or set XDG_RUNTIME_DIR or ENYAL_SOCKET to a folder only you can write'

--- nil when the socket at `path` may be trusted (or is absent), else why not.
---@param path string
---@return string|nil
function M.check_socket(path)
  local folder = path:match('^(.*)/[^/]*$')
  if folder == nil or folder == '' then
    folder = '/'
  end
  local st = uv.fs_stat(folder)
  if st == nil then
    return nil
  end
  local me = uid()
  if st.uid ~= me and st.uid ~= 0 then
    return ('%s belongs to uid %d, not to this user (uid %d); %s'):format(folder, st.uid, me, WHAT_TO_DO)
  end
  if math.floor((st.mode % 64) / 16) % 2 == 1 or math.floor((st.mode % 8) / 2) % 2 == 1 then
    return ('%s is writable by other users, who could put their own socket there; %s'):format(folder, WHAT_TO_DO)
  end
  local sock = uv.fs_lstat(path)
  if sock == nil then
    return nil
  end
  if sock.type ~= 'socket' then
    return ('%s is not a socket; %s'):format(path, WHAT_TO_DO)
  end
  if sock.uid ~= me then
    return ('the socket %s belongs to uid %d, not to this user (uid %d); %s'):format(path, sock.uid, me, WHAT_TO_DO)
  end
  return nil
end

local function runtime_dir(env, cwd)
  local runtime = env.XDG_RUNTIME_DIR
  if is_darwin() then
    if runtime and runtime ~= '' and private_dir(runtime) then
      return normalize(runtime .. '/enyal')
    end
    return (env.HOME or uv.os_homedir()) .. '/Library/Caches/TemporaryItems/enyal'
  end
  if runtime and runtime ~= '' then
    return normalize(runtime .. '/enyal')
  end
  return M.private_temp_dir(env, cwd)
end

--- The database this environment means (paths.py's Paths.db): sent in `enyal_expect`, so
--- that a daemon serving another data dir through the same socket refuses.
---@param env table|nil
---@param cwd string|nil
---@return string
function M.db(env, cwd)
  env = env or vim.fn.environ()
  cwd = cwd or vim.fn.getcwd()
  local home = env.ENYAL_HOME
  local data
  if home and home ~= '' then
    data = absolute(home, env, cwd)
  elseif is_darwin() then
    data = (env.HOME or uv.os_homedir()) .. '/Library/Application Support/enyal'
  else
    local xdg = env.XDG_DATA_HOME
    if xdg and xdg:match('%S') then
      data = normalize(xdg .. '/enyal')
    else
      data = (env.HOME or uv.os_homedir()) .. '/.local/share/enyal'
    end
  end
  return data .. '/enyal.db'
end

--- The socket path for an environment (a table of variables; the process's by default).
---@param env table|nil
---@param cwd string|nil
---@return string
function M.socket(env, cwd)
  env = env or vim.fn.environ()
  cwd = cwd or vim.fn.getcwd()
  local socket_env = env.ENYAL_SOCKET
  if socket_env and socket_env ~= '' then
    return absolute(socket_env, env, cwd)
  end
  local runtime
  local home = env.ENYAL_HOME
  if home and home ~= '' then
    runtime = absolute(home, env, cwd) .. '/run'
  else
    runtime = runtime_dir(env, cwd)
  end
  local socket = runtime .. '/' .. M.SOCKET_NAME
  if #socket > M.socket_path_max() then
    local digest = vim.fn.sha256(runtime):sub(1, 16)
    socket = M.private_temp_dir(env, cwd) .. '/' .. digest .. '.sock'
  end
  return socket
end

return M
