-- Live refresh of the memories shown in buffers (virtual_text / signs): a second pipe to the
-- daemon, subscribed to changes of file-scoped memories. A change whose file is open in a
-- buffer refreshes that buffer's memories at once, without waiting for BufEnter or
-- BufWritePost; a `resync` (changes were dropped) or a new subscription refreshes them all.
--
-- A daemon without `subscribe` (an older Enyal) answers "method not found": the plugin then
-- stays with the refresh on BufEnter and BufWritePost and does not ask again. When the pipe
-- closes (the daemon restarted), the next refresh opens it again.
local client = require('enyal.client')
local config = require('enyal.config')
local json = require('enyal.json')
local transport = require('enyal.transport')

local M = {}

local state = { conn = nil, starting = false, unsupported = false, pending = {}, flush = false }

local function refresh_all()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      require('enyal.commands').refresh_file(buf)
    end
  end
end

-- Coalesce: an import or a consolidation changes many memories at once.
local function refresh_soon(buf)
  state.pending[buf] = true
  if state.flush then
    return
  end
  state.flush = true
  vim.defer_fn(function()
    state.flush = false
    local bufs = state.pending
    state.pending = {}
    for b in pairs(bufs) do
      require('enyal.commands').refresh_file(b)
    end
  end, 20)
end

local function buffers_of(file)
  local found = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' then
      local name = vim.api.nvim_buf_get_name(buf)
      local place = require('enyal.commands').place(buf)
      if name ~= '' and (vim.fn.fnamemodify(name, ':p') == file or place == file) then
        table.insert(found, buf)
      end
    end
  end
  return found
end

local function on_notification(method, params)
  if method == 'resync' then
    refresh_all()
  elseif method == 'changed' and type(params) == 'table' then
    local file = json.value(params.scope_path)
    if type(file) == 'string' then
      for _, buf in ipairs(buffers_of(file)) do
        refresh_soon(buf)
      end
    end
  end
end

--- Whether changes are being listened to now.
function M.active()
  return state.conn ~= nil and not state.conn.closed
end

--- Why the last attempt to listen failed, if it did.
function M.last_error()
  return state.error
end

--- Whether the daemon said it has no `subscribe`.
function M.unsupported()
  return state.unsupported
end

--- Open the pipe and subscribe, once the shared connection has found the daemon (a no-op
--- while listening, while starting, or for a daemon without `subscribe`).
function M.ensure()
  local path = client.socket_path()
  if M.active() or state.starting or state.unsupported or path == nil then
    return
  end
  state.starting = true
  transport.connect(path, function(err, conn)
    if type(conn) ~= 'table' then
      state.starting = false
      state.error = err
      return -- no daemon on that path now: the next refresh tries again
    end
    conn.on_notification = on_notification
    conn.on_close = function()
      if state.conn == conn then
        state.conn = nil
      end
    end
    local extra = nil
    if config.get().check_version then
      extra = { enyal_expect = client.expect() }
    end
    conn:request('subscribe', { scope = 'file' }, function(serr)
      state.starting = false
      if serr then
        state.error = serr.message
        if serr.code == client.METHOD_NOT_FOUND then
          state.unsupported = true
        end
        conn:close()
        return
      end
      state.conn = conn
      refresh_all() -- whatever changed before the subscription took effect
    end, extra)
  end)
end

--- Stop listening (setup() with virtual text and signs off).
function M.stop()
  if state.conn then
    state.conn:close()
    state.conn = nil
  end
end

return M
