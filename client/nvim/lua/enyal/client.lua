-- The plugin's one connection to the daemon: found by enyal.paths, started through the
-- `enyal` CLI when nobody answers, checked against this plugin's release, shared by every
-- request. Asynchronous `request` and a synchronous `call` (vim.wait) for commands.
--
-- Autostart: when the socket is absent or refuses, `enyal status --json` runs as a job.
-- The CLI starts the daemon itself (under its spawn lock, so many clients make one
-- daemon), waits until it answers, and prints the status, whose `socket` is where that
-- daemon listens (which also covers a daemon that serves this database from another
-- runtime folder). The plugin then connects there, retrying for a short while.
local config = require('enyal.config')
local json = require('enyal.json')
local paths = require('enyal.paths')
local transport = require('enyal.transport')
local version = require('enyal.version')

local uv = vim.loop
local M = {}

M.METHOD_NOT_FOUND = -32601
M.VERSION_MISMATCH = -32008
M.SHUTTING_DOWN = -32006

local state = { conn = nil, connecting = false, waiters = {} }

local function cmd_argv(...)
  local cmd = config.get().cmd
  local argv = type(cmd) == 'string' and { cmd } or vim.deepcopy(cmd)
  for _, a in ipairs({ ... }) do
    table.insert(argv, a)
  end
  return argv
end

local function last_line(lines)
  for i = #(lines or {}), 1, -1 do
    if lines[i] ~= '' then
      return lines[i]
    end
  end
  return nil
end

-- Run `enyal status --json`; cb(err_message, socket_path) on the main loop.
local function start_daemon(cb)
  local argv = cmd_argv('status', '--json')
  if vim.fn.executable(argv[1]) ~= 1 then
    cb(('no Enyal daemon answers and `%s` is not an executable on PATH to start one '
      .. "(install Enyal, or set require('enyal').setup({ cmd = { '/path/to/enyal' } }))"):format(argv[1]))
    return
  end
  local out, errout = {}, {}
  local finished = false
  local timer = uv.new_timer()
  local job
  local function finish(err, socket)
    if finished then
      return
    end
    finished = true
    timer:stop()
    timer:close()
    cb(err, socket)
  end
  local ok, res = pcall(vim.fn.jobstart, argv, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      errout = data
    end,
    on_exit = function(_, code)
      local text = table.concat(out, '\n')
      local decoded_ok, status = pcall(json.decode, text)
      if code == 0 and decoded_ok and type(status) == 'table' and type(json.value(status.socket)) == 'string' then
        finish(nil, status.socket)
        return
      end
      local why = last_line(errout)
      if not why and decoded_ok and type(status) == 'table' and type(json.value(status.error)) == 'table' then
        why = tostring(status.error.message)
      end
      finish(('`%s` could not start the daemon (exit status %d)%s'):format(
        table.concat(argv, ' '), code, why and (': ' .. why) or ''))
    end,
  })
  if not ok or type(res) ~= 'number' or res <= 0 then
    finish(('cannot run `%s`: %s'):format(table.concat(argv, ' '), tostring(res)))
    return
  end
  job = res
  timer:start(config.get().start_timeout, 0, vim.schedule_wrap(function()
    pcall(vim.fn.jobstop, job)
    finish(('`%s` did not start the daemon within %ds'):format(
      table.concat(argv, ' '), math.floor(config.get().start_timeout / 1000)))
  end))
end

-- Connect to `path`, trying again every 50 ms until `deadline` (uv.now() ms).
local function connect_retry(path, deadline, cb)
  transport.connect(path, function(err, conn)
    if type(conn) == 'table' then
      cb(nil, conn)
    elseif uv.now() >= deadline then
      cb(('the daemon was started but %s does not answer: %s'):format(path, err))
    else
      vim.defer_fn(function()
        connect_retry(path, deadline, cb)
      end, 50)
    end
  end)
end

local function open(cb)
  local path = paths.socket()
  transport.connect(path, function(err, conn_or_name)
    if type(conn_or_name) == 'table' then
      cb(nil, conn_or_name)
      return
    end
    if conn_or_name ~= 'ENOENT' and conn_or_name ~= 'ECONNREFUSED' then
      cb(('cannot connect to the daemon at %s: %s'):format(path, err))
      return
    end
    start_daemon(function(serr, socket)
      if serr then
        cb(serr)
        return
      end
      uv.update_time()
      connect_retry(socket or path, uv.now() + 5000, cb)
    end)
  end)
end

-- cb(err_message, conn) with the shared connection, opening it if needed.
local function with_connection(cb)
  if state.conn and not state.conn.closed then
    cb(nil, state.conn)
    return
  end
  table.insert(state.waiters, cb)
  if state.connecting then
    return
  end
  state.connecting = true
  open(function(err, conn)
    state.connecting = false
    if conn then
      conn.expect_pending = true
      state.conn = conn
    end
    local waiters = state.waiters
    state.waiters = {}
    for _, w in ipairs(waiters) do
      w(err, conn)
    end
  end)
end

--- The `enyal_expect` member of a connection's first request: this plugin's release, and
--- the database its environment means.
function M.expect()
  return { version = version.version, protocol = version.protocol, db = paths.db() }
end

local function mismatch(err, expect)
  local d = type(err.data) == 'table' and err.data or {}
  local theirs = json.value(d.db)
  if type(theirs) == 'string' then
    return {
      code = err.code,
      data = err.data,
      message = ('the daemon answering (pid %s) serves the database %s, not this client\'s %s: two data '
        .. 'dirs share one socket. Give each its own ENYAL_SOCKET (or unset it), or stop that daemon'):format(
        tostring(json.value(d.pid)), theirs, expect.db),
    }
  end
  return {
    code = err.code,
    data = err.data,
    message = ('this Neovim plugin is for enyal %s (protocol %d) but the daemon (pid %s) runs enyal %s '
      .. '(protocol %s); run `enyal daemon restart` to start the installed version, or update the plugin '
      .. '(setup({ check_version = false }) skips the check)'):format(
      version.version, version.protocol, tostring(json.value(d.pid)), tostring(json.value(d.version)),
      tostring(json.value(d.protocol))),
  }
end

--- Whether a connection to the daemon is open now.
function M.connected()
  return state.conn ~= nil and not state.conn.closed
end

--- Send `method` with `params`; cb(err, result) on the main loop, err a table
--- {code, message, data} (no code: the daemon could not be reached).
function M.request(method, params, cb)
  cb = cb or function() end
  local retried = false
  local function attempt()
    with_connection(function(err, conn)
      if err then
        cb({ message = err }, nil)
        return
      end
      local extra = nil
      if conn.expect_pending and config.get().check_version then
        extra = { enyal_expect = M.expect() }
      end
      conn.expect_pending = false
      conn:request(method, params, function(rerr, result)
        if rerr and (rerr.closed or rerr.code == M.SHUTTING_DOWN) and not retried then
          -- The daemon hung up without answering, or is stopping (it exited after idling,
          -- or restarts): reach it again, or start it, and send the request once more.
          retried = true
          conn:close()
          attempt()
          return
        end
        if rerr and rerr.code == M.VERSION_MISMATCH and extra then
          rerr = mismatch(rerr, extra.enyal_expect)
        end
        cb(rerr, result)
      end, extra)
    end)
  end
  attempt()
end

--- The synchronous form, for commands: result, err. Waits `timeout` ms (the configured
--- one; longer while a daemon may have to be started).
function M.call(method, params, timeout)
  local done, err, result = false, nil, nil
  local limit = timeout or config.get().timeout
  if not M.connected() then
    limit = limit + config.get().start_timeout
  end
  M.request(method, params, function(e, r)
    done, err, result = true, e, r
  end)
  local ok, why = vim.wait(limit, function()
    return done
  end, 10)
  if not ok then
    if why == -2 then
      return nil, { message = ('%s interrupted'):format(method) }
    end
    return nil, { message = ('the daemon did not answer %s within %.1fs'):format(method, limit / 1000) }
  end
  return result, err
end

--- The socket the shared connection reached (nil before one was opened): a second
--- connection (enyal.live) goes to the same daemon.
function M.socket_path()
  return state.conn and state.conn.path or nil
end

--- Close the connection (the next request opens a new one).
function M.close()
  if state.conn then
    state.conn:close()
    state.conn = nil
  end
end

return M
