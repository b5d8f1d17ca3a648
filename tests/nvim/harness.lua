-- What every Neovim scenario of tests/test_nvim.py starts with:
--   local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
-- It puts the plugin on the runtimepath and loads plugin/enyal.lua as a plugin manager
-- would, records vim.notify, and answers vim.ui.select / vim.ui.input from queues.
-- Those two are Neovim's own UI hooks, meant to be replaced (telescope, dressing.nvim and
-- fzf-lua do): replacing them here plays the user, not the plugin. H.run(fn) runs the
-- scenario and writes everything to $ENYAL_NVIM_OUT as JSON for the test to assert on.
local H = {
  notes = {}, -- {msg, level} of every vim.notify
  selects = {}, -- {prompt, labels} of every picker shown
  inputs = {}, -- prompts of every vim.ui.input
  out = {}, -- what the scenario records
  answer = { select = {}, input = {} },
}

-- Lua globals before the plugin loads: it must add none (modules are `local M = {}`).
local globals_before = {}
for k in pairs(_G) do
  globals_before[k] = true
end

vim.opt.runtimepath:prepend(vim.env.ENYAL_NVIM_PLUGIN)
vim.cmd('runtime plugin/enyal.lua')

vim.notify = function(msg, level)
  table.insert(H.notes, { msg = msg, level = level or vim.log.levels.INFO })
end

-- An answer is an index, a Lua pattern matched against the shown labels, or nil (cancel).
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, item in ipairs(items) do
    labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
  end
  table.insert(H.selects, { prompt = opts.prompt or '', labels = labels })
  local answer = table.remove(H.answer.select, 1)
  local index = nil
  if type(answer) == 'number' then
    index = answer
  elseif type(answer) == 'string' then
    for i, label in ipairs(labels) do
      if label:find(answer) then
        index = i
        break
      end
    end
  end
  on_choice(index and items[index] or nil, index)
end

vim.ui.input = function(opts, on_confirm)
  table.insert(H.inputs, opts.prompt or '')
  on_confirm(table.remove(H.answer.input, 1))
end

function H.levels_of(level)
  local msgs = {}
  for _, n in ipairs(H.notes) do
    if n.level == level then
      table.insert(msgs, n.msg)
    end
  end
  return msgs
end

function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

--- The texts of the virtual lines the plugin put in a buffer, in order.
function H.virt_lines(buf)
  local ns = vim.api.nvim_create_namespace('enyal')
  local texts = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, ns, 0, -1, { details = true })) do
    for _, chunks in ipairs(mark[4].virt_lines or {}) do
      table.insert(texts, chunks[1][1])
    end
  end
  return texts
end

--- A stand-in daemon in this Neovim: a libuv pipe server on $ENYAL_SOCKET that hands each
--- request line to on_line(sock, line, n), n counting connections from 1. on_line returning
--- false stops reading that connection (it has closed it). Runs in libuv's fast context.
function H.fake_daemon(on_line)
  local uv = vim.loop
  local server = uv.new_pipe(false)
  assert(server:bind(vim.env.ENYAL_SOCKET))
  local connections = 0
  server:listen(8, function()
    connections = connections + 1
    local n = connections
    local sock = uv.new_pipe(false)
    server:accept(sock)
    local buf = ''
    sock:read_start(function(_, chunk)
      if not chunk then
        sock:close()
        return
      end
      buf = buf .. chunk
      while buf:find('\n') do
        local line = buf:sub(1, buf:find('\n') - 1)
        buf = buf:sub(buf:find('\n') + 1)
        if on_line(sock, line, n) == false then
          return
        end
      end
    end)
  end)
  return server
end

function H.finish()
  local leaked = {}
  for k in pairs(_G) do
    if not globals_before[k] then
      table.insert(leaked, tostring(k))
    end
  end
  local data = {
    leaked_globals = leaked,
    notes = H.notes,
    selects = H.selects,
    inputs = H.inputs,
    out = H.out,
    nvim = vim.version().major .. '.' .. vim.version().minor .. '.' .. vim.version().patch,
  }
  local f = assert(io.open(vim.env.ENYAL_NVIM_OUT, 'w'))
  f:write(vim.fn.json_encode(data))
  f:close()
  vim.cmd('qall!')
end

function H.run(fn)
  local ok, err = xpcall(fn, debug.traceback)
  if not ok then
    H.out.lua_error = err
  end
  H.finish()
end

return H
