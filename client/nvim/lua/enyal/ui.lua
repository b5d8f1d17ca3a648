-- What the user sees: messages, picker lines, a memory's buffer, the file's virtual lines,
-- a float. No daemon calls here (enyal.commands makes them).
local config = require('enyal.config')
local json = require('enyal.json')

local M = {}

M.ns = vim.api.nvim_create_namespace('enyal')

--- A message; errors at ERROR level, never a stack trace.
function M.notify(msg, level)
  vim.notify('enyal: ' .. msg, level or vim.log.levels.INFO)
end

function M.error(err)
  local msg = type(err) == 'table' and err.message or tostring(err)
  M.notify(msg, vim.log.levels.ERROR)
end

local function one_line(text, width)
  local s = tostring(text or ''):gsub('%s+', ' ')
  s = vim.trim(s)
  if width and vim.fn.strchars(s) > width then
    s = vim.fn.strcharpart(s, 0, width - 1) .. '…'
  end
  return s
end

--- "scope" as a person reads it: file:/a/b.py, project:/a, global.
function M.scope_label(entry)
  local path = json.value(entry.scope_path)
  if path then
    if entry.scope_level == 'file' then
      path = vim.fn.fnamemodify(path, ':~:.')
    else
      path = vim.fn.fnamemodify(path, ':~')
    end
    return entry.scope_level .. ':' .. path
  end
  return tostring(entry.scope_level)
end

--- One picker line: content, type, scope, score (a hit) or "stale" (an item's `mark`).
function M.format_item(item)
  local e = item.entry
  local right = ('[%s] %s'):format(e.content_type, M.scope_label(e))
  local score = json.value(item.score)
  if score then
    right = right .. (' %.2f'):format(score)
  end
  if item.mark then
    right = right .. ' ' .. item.mark
  end
  return one_line(e.content, 72) .. '  ' .. right
end

local function field_lines(entry, extra)
  local v = json.value
  local tags = v(entry.tags) or {}
  local lines = {
    ('id:          %s'):format(entry.id),
    ('type:        %s'):format(entry.content_type),
    ('scope:       %s%s'):format(entry.scope_level, v(entry.scope_path) and (' ' .. entry.scope_path) or ''),
    ('confidence:  %s'):format(tostring(v(entry.confidence))),
    ('importance:  %s'):format(tostring(v(entry.importance))),
    ('tags:        %s'):format(#tags > 0 and table.concat(tags, ', ') or '-'),
    ('created:     %s'):format(tostring(v(entry.created_at))),
    ('updated:     %s'):format(tostring(v(entry.updated_at))),
  }
  if v(entry.confirmed_at) then
    table.insert(lines, ('confirmed:   %s (%d times)'):format(entry.confirmed_at, v(entry.confirm_count) or 0))
  end
  if v(entry.written_by) then
    table.insert(lines, ('written by:  %s'):format(entry.written_by))
  end
  if v(entry.source_ref) then
    table.insert(lines, ('source:      %s %s'):format(tostring(v(entry.source_type)), entry.source_ref))
  end
  if v(entry.expires_at) then
    table.insert(lines, ('expires:     %s'):format(entry.expires_at))
  end
  if entry.is_deprecated == true then
    table.insert(lines, 'forgotten:   yes (enyal restore ' .. entry.id:sub(1, 8) .. ')')
  end
  if entry.quarantined == true then
    table.insert(lines, ('quarantined: %s'):format(tostring(v(entry.quarantine_reason))))
  end
  if extra and json.value(extra.score) then
    table.insert(lines, ('score:       %.3f (semantic %.2f, keyword %.2f, recency %.2f)'):format(
      extra.score, v(extra.semantic) or 0, v(extra.keyword) or 0, v(extra.recency) or 0))
  end
  return lines
end

--- Lines of a memory's buffer: the content, a blank line, then its fields.
function M.entry_lines(entry, hit)
  local lines = vim.split(entry.content, '\n', { plain = true })
  table.insert(lines, '')
  table.insert(lines, '---')
  vim.list_extend(lines, field_lines(entry, hit))
  local maps = config.get().mappings
  table.insert(lines, '')
  table.insert(lines, ('%s forget · %s confirm · %s copy id · %s close'):format(
    maps.forget, maps.confirm, maps.copy_id, maps.close))
  return lines
end

--- Show a memory in a scratch buffer (buftype=nofile) with `actions` on buffer-local keys:
--- actions = { forget = fn(entry, bufnr), confirm = ..., copy_id = ... }.
function M.open_entry(entry, hit, actions)
  local name = 'enyal://' .. entry.id
  local buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.entry_lines(entry, hit))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'enyal'
  vim.api.nvim_buf_set_var(buf, 'enyal_entry_id', entry.id)
  local maps = config.get().mappings
  for action, fn in pairs(actions or {}) do
    local lhs = maps[action]
    if lhs and lhs ~= '' then
      vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '', {
        noremap = true,
        nowait = true,
        silent = true,
        desc = 'enyal: ' .. action,
        callback = function()
          fn(entry, buf)
        end,
      })
    end
  end
  if maps.close and maps.close ~= '' then
    vim.api.nvim_buf_set_keymap(buf, 'n', maps.close, '<cmd>bwipeout<CR>', { noremap = true, nowait = true, silent = true })
  end
  vim.api.nvim_set_current_buf(buf)
  return buf
end

--- Replace a memory buffer's lines with the entry as it is now.
function M.refresh_entry(buf, entry)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.entry_lines(entry, nil))
  vim.bo[buf].modifiable = false
end

--- Virtual lines above the first line (and a sign) for the memories of a file.
function M.show_file_memories(buf, entries)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local opts = config.get()
  if #entries == 0 or (not opts.virtual_text and not opts.signs) then
    return
  end
  local mark = {}
  if opts.virtual_text then
    local virt = {}
    for i, e in ipairs(entries) do
      if i > opts.virtual_text_max then
        table.insert(virt, { { ('  enyal: … and %d more (:EnyalFile)'):format(#entries - opts.virtual_text_max), 'Comment' } })
        break
      end
      table.insert(virt, { { ('  enyal [%s] %s'):format(e.content_type, one_line(e.content, 100)), 'Comment' } })
    end
    mark.virt_lines = virt
    mark.virt_lines_above = true
  end
  if opts.signs then
    mark.sign_text = opts.sign_text
    mark.sign_hl_group = 'Comment'
  end
  vim.api.nvim_buf_set_extmark(buf, M.ns, 0, 0, mark)
end

--- Text in a centred float (q or <Esc> closes it).
function M.float(lines, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'markdown'
  local width = math.min(math.max(40, vim.o.columns - 10), 100)
  local height = math.min(#lines, math.max(5, vim.o.lines - 6))
  local win = vim.api.nvim_open_win(buf, true, {
    relative = 'editor',
    width = width,
    height = height,
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    style = 'minimal',
    border = 'rounded',
  })
  for _, lhs in ipairs({ 'q', '<Esc>' }) do
    vim.api.nvim_buf_set_keymap(buf, 'n', lhs, '<cmd>close<CR>', { noremap = true, nowait = true, silent = true })
  end
  if title then
    vim.api.nvim_buf_set_var(buf, 'enyal_title', title)
  end
  return win, buf
end

return M
