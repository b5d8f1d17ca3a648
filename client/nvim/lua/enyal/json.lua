-- JSON for the wire: vim.json (Neovim 0.6+) when present, else the Vimscript functions.
-- JSON null decodes to vim.NIL either way; M.value turns it into nil.
local M = {}

local has_vim_json = vim.json ~= nil and vim.json.encode ~= nil

function M.encode(value)
  if has_vim_json then
    return vim.json.encode(value)
  end
  return vim.fn.json_encode(value)
end

function M.decode(text)
  if has_vim_json then
    return vim.json.decode(text)
  end
  return vim.fn.json_decode(text)
end

--- An empty JSON object (an empty Lua table encodes as `[]`).
function M.object()
  return vim.empty_dict()
end

--- nil for JSON null, the value otherwise.
function M.value(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

return M
