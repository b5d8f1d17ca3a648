-- The plugin's options: defaults, and what require('enyal').setup() merged over them.
local M = {}

M.defaults = {
  -- How to run the CLI that starts the daemon when its socket does not answer.
  cmd = { 'enyal' },
  -- Memories of the open file as virtual lines above its first line, and a sign there.
  virtual_text = false,
  signs = false,
  sign_text = 'E',
  virtual_text_max = 3,
  -- Recall: how many results, and the relevance floors the CLI also applies (recall.floor,
  -- and recall.relative: less than this share of the best result's relevance is left out).
  recall_limit = 20,
  min_relevance = 0.2,
  min_relative = 0.5,
  -- Milliseconds a command waits for an answer, and for a daemon being started.
  timeout = 10000,
  start_timeout = 60000,
  -- Send `enyal_expect` (this plugin's release) on a connection's first request.
  check_version = true,
  -- Buffer-local keys in a memory's buffer.
  mappings = { forget = 'dd', confirm = 'cc', copy_id = 'gy', close = 'q' },
}

M.options = vim.deepcopy(M.defaults)

function M.set(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  return M.options
end

function M.get()
  return M.options
end

return M
