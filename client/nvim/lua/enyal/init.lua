-- Enyal for Neovim: persistent memory for AI coding agents, from the editor.
-- Talks JSON-RPC to the Enyal daemon's Unix socket (enyal.client); :help enyal.
local M = {}

--- Options (:help enyal-setup). Calling it is optional.
function M.setup(opts)
  local config = require('enyal.config')
  config.set(opts)
  local group = vim.api.nvim_create_augroup('enyal', { clear = true })
  local o = config.get()
  if o.virtual_text or o.signs then
    vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost' }, {
      group = group,
      desc = 'enyal: show the memories of the file',
      callback = function(args)
        require('enyal.commands').refresh_file(args.buf)
      end,
    })
    -- Buffers already open when setup() runs late (lazy loading).
    require('enyal.commands').refresh_file(vim.api.nvim_get_current_buf())
  else
    require('enyal.live').stop()
  end
  return o
end

--- The daemon, for scripts: require('enyal').call('stats', {}) -> result, err.
function M.call(method, params, timeout)
  return require('enyal.client').call(method, params, timeout)
end

function M.request(method, params, cb)
  return require('enyal.client').request(method, params, cb)
end

function M.recall(query)
  require('enyal.commands').guard(require('enyal.commands').recall)(query)
end

function M.remember(opts)
  require('enyal.commands').guard(require('enyal.commands').remember)(opts)
end

function M.file()
  require('enyal.commands').guard(require('enyal.commands').file)()
end

function M.brief()
  require('enyal.commands').guard(require('enyal.commands').brief)()
end

return M
