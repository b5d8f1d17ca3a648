-- A daemon of an older Enyal (a server in this same Neovim on $ENYAL_SOCKET) answers
-- `subscribe` with "method not found": the plugin keeps showing the file's memories,
-- fetched on buffer events, and does not ask again.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')

local methods = {} -- every method asked, in order
local file = vim.env.ENYAL_TEST_FILE -- read here: the server's callbacks run in libuv's fast context
H.fake_daemon(function(sock, line)
  local req = vim.json.decode(line)
  table.insert(methods, req.method)
  local answer
  if req.method == 'list' then
    local entry = {
      id = '0123456789abcdef', content = 'a memory from an old daemon', content_type = 'fact',
      scope_level = 'file', scope_path = file,
    }
    answer = { jsonrpc = '2.0', id = req.id, result = { entries = { entry }, next = vim.NIL } }
  else
    answer = { jsonrpc = '2.0', id = req.id, error = { code = -32601, message = "unknown method 'subscribe'" } }
  end
  sock:write(vim.json.encode(answer) .. '\n')
end)

H.run(function()
  require('enyal').setup({ virtual_text = true })
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ENYAL_TEST_FILE))
  local b = vim.api.nvim_get_current_buf()
  vim.wait(10000, function()
    return require('enyal.live').unsupported()
  end, 20)
  H.out.unsupported = require('enyal.live').unsupported()
  H.out.virt = H.virt_lines(b)
  vim.cmd("doautocmd BufEnter") -- fetched again the old way; subscribe is not asked again
  vim.wait(5000, function()
    local lists = 0
    for _, m in ipairs(methods) do
      lists = lists + (m == 'list' and 1 or 0)
    end
    return lists >= 2
  end, 20)
  H.out.methods = methods
  H.out.active = require('enyal.live').active()
end)
