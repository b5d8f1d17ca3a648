-- The commands: each asks what it needs (vim.ui.input / vim.ui.select), makes its daemon
-- calls through enyal.client and hands what comes back to enyal.ui.
local client = require('enyal.client')
local config = require('enyal.config')
local json = require('enyal.json')
local ui = require('enyal.ui')

local M = {}

-- wire.ContentType (client/enyal_protocol/wire.py; tests/test_nvim.py keeps them equal).
M.CONTENT_TYPES = { 'fact', 'preference', 'decision', 'convention', 'pattern' }

--- fn wrapped so that a Lua error becomes one message, not a stack trace.
function M.guard(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      ui.error('internal error: ' .. tostring(err))
    end
  end
end

local function short(id)
  return tostring(id):sub(1, 8)
end

--- The file a buffer shows (absolute), or nil for a scratch, help or unnamed buffer.
local function buffer_file(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then
    return nil
  end
  return vim.fn.fnamemodify(name, ':p')
end

-- Actions on a memory's buffer --------------------------------------------------------

local actions = {}

function actions.forget(entry, buf)
  local result, err = client.call('forget', { id = entry.id })
  if err then
    return ui.error(err)
  end
  if result.changed == false then
    ui.notify(('%s was already forgotten'):format(short(entry.id)))
  else
    ui.notify(('forgot %s (`enyal restore %s` brings it back)'):format(short(entry.id), short(entry.id)))
  end
  local now = client.call('get', { id = entry.id })
  if now then
    ui.refresh_entry(buf, now)
  end
end

function actions.confirm(entry, buf)
  local result, err = client.call('confirm', { id = entry.id })
  if err then
    return ui.error(err)
  end
  ui.refresh_entry(buf, result)
  ui.notify(('confirmed %s'):format(short(entry.id)))
end

function actions.copy_id(entry)
  vim.fn.setreg('"', entry.id)
  if vim.fn.has('clipboard') == 1 then
    pcall(vim.fn.setreg, '+', entry.id)
  end
  ui.notify(('copied %s'):format(entry.id))
end

for name, fn in pairs(actions) do
  actions[name] = M.guard(fn)
end
M.actions = actions

--- Open a memory (an entry, or a recall hit) in its scratch buffer.
function M.open(entry, hit)
  return ui.open_entry(entry, hit, actions)
end

local function pick(items, prompt)
  vim.ui.select(items, { prompt = prompt, format_item = ui.format_item, kind = 'enyal' }, M.guard(function(item)
    if item then
      M.open(item.entry, item.hit)
    end
  end))
end

-- :EnyalRecall [query] ------------------------------------------------------------------

function M.recall(query)
  if query == nil or vim.trim(query) == '' then
    vim.ui.input({ prompt = 'Recall: ' }, M.guard(function(q)
      if q and vim.trim(q) ~= '' then
        M.recall(q)
      end
    end))
    return
  end
  local opts = config.get()
  local result, err = client.call('recall', {
    query = query,
    limit = opts.recall_limit,
    min_relevance = opts.min_relevance,
    min_relative = opts.min_relative,
    cwd = vim.fn.getcwd(),
  })
  if err then
    return ui.error(err)
  end
  local items = {}
  for _, hit in ipairs(result.results) do
    table.insert(items, { entry = hit, hit = hit, score = json.value(hit.adjusted_score) or hit.score })
  end
  if #items == 0 then
    return ui.notify(('nothing recalled for "%s"'):format(query))
  end
  pick(items, ('Enyal: %s'):format(query))
end

-- :[range]EnyalRemember[!] [text] -------------------------------------------------------

local function split_tags(text)
  local tags = {}
  for tag in (text or ''):gmatch('[^,]+') do
    tag = vim.trim(tag)
    if tag ~= '' then
      table.insert(tags, tag)
    end
  end
  return tags
end

local REMEMBERED = {
  created = 'remembered',
  existing = 'already remembered',
  rejected = 'not stored, too similar to',
  merged = 'merged into',
  stored = 'remembered',
}

local function store(content, scope, content_type, tags)
  local params = {
    content = content,
    content_type = content_type,
    scope = scope.scope,
    scope_path = scope.scope_path,
    written_by = 'user',
    cwd = vim.fn.getcwd(),
  }
  if #tags > 0 then
    params.tags = tags
  end
  local result, err = client.call('remember', params)
  if err then
    return ui.error(err)
  end
  local entry = result.entry
  local where = entry.scope_level .. (json.value(entry.scope_path) and (' ' .. vim.fn.fnamemodify(entry.scope_path, ':~:.')) or '')
  ui.notify(('%s %s (%s, %s)'):format(REMEMBERED[result.action] or result.action, short(result.id), entry.content_type, where))
  if entry.quarantined == true then
    ui.notify(('%s is quarantined (%s): it reads as an instruction to an agent, so recall leaves it out; '
      .. '`enyal release %s` if you meant it'):format(short(result.id), tostring(json.value(entry.quarantine_reason)), short(result.id)),
      vim.log.levels.WARN)
  end
  local redacted = json.value(result.redacted)
  if type(redacted) == 'table' and next(redacted) ~= nil then
    local kinds = {}
    for kind, n in pairs(redacted) do
      table.insert(kinds, ('%s ×%d'):format(kind, n))
    end
    table.sort(kinds)
    ui.notify('secrets redacted before storing: ' .. table.concat(kinds, ', '), vim.log.levels.WARN)
  end
  M.refresh_file(vim.api.nvim_get_current_buf())
  return result
end

local function ask_and_store(content, scope)
  if vim.trim(content) == '' then
    return ui.notify('nothing to remember: the text is empty', vim.log.levels.WARN)
  end
  vim.ui.select(M.CONTENT_TYPES, { prompt = 'Type of memory' }, M.guard(function(content_type)
    if not content_type then
      return
    end
    vim.ui.input({ prompt = 'Tags (comma-separated, optional): ' }, M.guard(function(tags)
      if tags == nil then
        return
      end
      store(content, scope, content_type, split_tags(tags))
    end))
  end))
end

--- opts: a user command's (args, range, line1, line2, bang).
function M.remember(opts)
  opts = opts or {}
  local buf = vim.api.nvim_get_current_buf()
  local file = buffer_file(buf)
  local scope
  if file and not opts.bang then
    scope = { scope = 'file', scope_path = file }
  else
    scope = { scope = 'project' }
  end
  if opts.args and opts.args ~= '' then
    return ask_and_store(opts.args, scope)
  end
  if opts.range and opts.range > 0 then
    local lines = vim.api.nvim_buf_get_lines(buf, opts.line1 - 1, opts.line2, false)
    return ask_and_store(table.concat(lines, '\n'), scope)
  end
  vim.ui.input({ prompt = 'Remember: ' }, M.guard(function(text)
    if text then
      ask_and_store(text, scope)
    end
  end))
end

-- :EnyalFile ----------------------------------------------------------------------------

-- A file's memories name it by its place (its project's key and its path from the root,
-- docs/ARCHITECTURE.md "Project identity"), not by its path here: learnt per buffer from
-- the file's own memories, which the daemon found by the path.
local places = {}

local function place_in(entries)
  for _, e in ipairs(entries) do
    if e.scope_level == 'file' and json.value(e.scope_path) then
      return e.scope_path
    end
  end
end

local function learn_place(buf, entries)
  places[buf] = place_in(entries) or places[buf]
end

--- The place of the buffer's file, once one of its memories said it.
function M.place(buf)
  return places[buf]
end

local function file_params(file)
  return { scope = 'file', scope_path = file, cwd = vim.fn.getcwd(), limit = 100 }
end

function M.file()
  local file = buffer_file(vim.api.nvim_get_current_buf())
  if not file then
    return ui.notify('this buffer is not a file', vim.log.levels.WARN)
  end
  local listed, err = client.call('list', file_params(file))
  if err then
    return ui.error(err)
  end
  local review, rerr = client.call('review', { kind = 'stale', limit = 100 })
  if rerr then
    return ui.error(rerr)
  end
  local stale = {}
  for _, e in ipairs(review.stale) do
    local where = json.value(e.scope_path)
    if e.scope_level == 'file' and where and (where == file or where == place_in(listed.entries)) then
      stale[e.id] = e
    end
  end
  local items = {}
  for _, e in ipairs(listed.entries) do
    table.insert(items, { entry = e, mark = stale[e.id] and 'stale' or nil })
    stale[e.id] = nil
  end
  for _, e in pairs(stale) do
    table.insert(items, { entry = e, mark = 'stale' })
  end
  if #items == 0 then
    return ui.notify(('no memories for %s'):format(vim.fn.fnamemodify(file, ':~:.')))
  end
  pick(items, ('Enyal: %s'):format(vim.fn.fnamemodify(file, ':~:.')))
end

-- :EnyalBrief ---------------------------------------------------------------------------

local function brief_lines(result)
  local r = json.value(result)
  if type(r) == 'string' then
    return vim.split(r, '\n', { plain = true })
  end
  if type(r) == 'table' then
    for _, key in ipairs({ 'text', 'markdown', 'brief' }) do
      if type(json.value(r[key])) == 'string' then
        return vim.split(r[key], '\n', { plain = true })
      end
    end
  end
  return vim.split(vim.inspect(r), '\n', { plain = true })
end

function M.brief()
  local result, err = client.call('brief', { cwd = vim.fn.getcwd() })
  if err and err.code == client.METHOD_NOT_FOUND then
    return ui.notify(':EnyalBrief needs an Enyal with `brief`; the daemon running has no such method',
      vim.log.levels.WARN)
  end
  if err then
    return ui.error(err)
  end
  ui.float(brief_lines(result), 'Enyal brief')
end

-- Virtual text --------------------------------------------------------------------------

local warned = false

--- Fetch the memories of a buffer's file and show them (if virtual text or signs are on).
--- Asynchronous: the editor never waits for it. It runs on BufEnter and BufWritePost (and
--- after :EnyalRemember), and when the daemon says a memory of the file changed
--- (enyal.live, which the first refresh that reaches the daemon starts).
function M.refresh_file(buf)
  local opts = config.get()
  if not (opts.virtual_text or opts.signs) or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local file = buffer_file(buf)
  if not file then
    return
  end
  client.request('list', file_params(file), function(err, result)
    if not err then
      learn_place(buf, result.entries)
    end
    if err then
      if not warned then
        warned = true
        ui.notify('cannot show the memories of this file: ' .. err.message, vim.log.levels.WARN)
      end
      return
    end
    warned = false
    M.guard(ui.show_file_memories)(buf, result.entries)
    require('enyal.live').ensure()
  end)
end

return M
