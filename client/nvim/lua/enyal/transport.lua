-- One connection to the daemon over Neovim's libuv pipe: newline-delimited JSON-RPC 2.0,
-- request ids, and a read buffer that copes with a frame split over reads or several
-- frames in one read. Knows nothing of autostart or of the user: see enyal.client.
--
-- Callbacks run on the main loop (scheduled), never in libuv's fast context, so they may
-- call any API, as does `conn.on_notification(method, params)`, called for each
-- notification the daemon sends (after a `subscribe`). An error is a table {code, message, data}; `closed = true` marks one the
-- connection's end caused (no code: the daemon never answered).
local json = require('enyal.json')

local uv = vim.loop
local M = {}

local Conn = {}
Conn.__index = Conn

local function closed_error(why)
  return { message = why or 'the daemon closed the connection', closed = true }
end

function Conn:_fail_all(err)
  local pending = self.pending
  self.pending = {}
  for _, cb in pairs(pending) do
    cb(err, nil)
  end
end

function Conn:close(why)
  if self.closed then
    return
  end
  self.closed = true
  if not self.pipe:is_closing() then
    self.pipe:close()
  end
  self:_fail_all(closed_error(why))
  if self.on_close then
    self.on_close(why)
  end
end

function Conn:_dispatch(line)
  if line:match('^%s*$') then
    return
  end
  local ok, msg = pcall(json.decode, line)
  if not ok or type(msg) ~= 'table' then
    self:close('the daemon sent a line that is not JSON')
    return
  end
  local id = json.value(msg.id)
  local method = json.value(msg.method)
  if id == nil and type(method) == 'string' then
    -- A notification (`changed`, `resync`): for whoever subscribed on this connection.
    if self.on_notification then
      self.on_notification(method, json.value(msg.params))
    end
    return
  end
  local cb = id ~= nil and self.pending[id] or nil
  if cb == nil then
    -- No request of ours: an error about a frame the daemon could not read at all.
    local e = json.value(msg.error)
    if type(e) == 'table' then
      self:close(tostring(e.message))
    end
    return
  end
  self.pending[id] = nil
  local e = json.value(msg.error)
  if type(e) == 'table' then
    cb({ code = json.value(e.code), message = tostring(json.value(e.message) or 'error'), data = json.value(e.data) }, nil)
  else
    cb(nil, msg.result)
  end
end

-- Bytes as they arrive: complete lines are dispatched, the rest waits for the next read.
function Conn:_feed(chunk)
  if not chunk:find('\n', 1, true) then
    table.insert(self.parts, chunk)
    return
  end
  table.insert(self.parts, chunk)
  local data = table.concat(self.parts)
  self.parts = {}
  local start = 1
  while true do
    local nl = data:find('\n', start, true)
    if not nl then
      break
    end
    self:_dispatch(data:sub(start, nl - 1))
    if self.closed then
      return
    end
    start = nl + 1
  end
  if start <= #data then
    table.insert(self.parts, data:sub(start))
  end
end

--- Send a request; cb(err, result) once its response (or the connection's end) comes.
---@param extra table|nil members added to the request object (enyal_expect)
function Conn:request(method, params, cb, extra)
  if self.closed then
    vim.schedule(function()
      cb(closed_error(), nil)
    end)
    return
  end
  local id = self.next_id
  self.next_id = id + 1
  local req = { jsonrpc = '2.0', id = id, method = method, params = params or json.object() }
  for k, v in pairs(extra or {}) do
    req[k] = v
  end
  local ok, line = pcall(json.encode, req)
  if not ok then
    vim.schedule(function()
      cb({ message = 'cannot encode the request: ' .. tostring(line) }, nil)
    end)
    return
  end
  self.pending[id] = cb
  self.pipe:write(line .. '\n', function(err)
    if err then
      vim.schedule(function()
        self:close('cannot write to the daemon: ' .. tostring(err))
      end)
    end
  end)
end

--- Connect to the socket at `path`; cb(nil, conn) or cb(err_message, err_name) on the
--- main loop, err_name being libuv's (ENOENT, ECONNREFUSED, ...), or 'EUNTRUSTED' when the
--- socket or its folder is another user's (enyal.paths check_socket): nothing is sent then.
function M.connect(path, cb)
  local untrusted = require('enyal.paths').check_socket(path)
  if untrusted then
    vim.schedule(function()
      cb(untrusted, 'EUNTRUSTED')
    end)
    return
  end
  local pipe = uv.new_pipe(false)
  local function fail(err)
    if not pipe:is_closing() then
      pipe:close()
    end
    local name = tostring(err):match('^(%u+)') or tostring(err)
    vim.schedule(function()
      cb(tostring(err), name)
    end)
  end
  local ok, req, err = pcall(pipe.connect, pipe, path, function(cerr)
    if cerr then
      fail(cerr)
      return
    end
    local conn = setmetatable({ pipe = pipe, pending = {}, next_id = 1, parts = {}, closed = false, path = path }, Conn)
    pipe:read_start(function(rerr, chunk)
      vim.schedule(function()
        if rerr then
          conn:close('cannot read from the daemon: ' .. tostring(rerr))
        elseif chunk == nil then
          conn:close()
        elseif not conn.closed then
          conn:_feed(chunk)
        end
      end)
    end)
    vim.schedule(function()
      cb(nil, conn)
    end)
  end)
  if not ok then
    fail(req)
  elseif req == nil then
    fail(err)
  end
end

return M
