-- The daemon's errors reach the user as messages, never as a Lua stack trace.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  -- A plugin of another release: the daemon refuses the first request of the connection.
  local version = require('enyal.version')
  local real = version.version
  version.version = '0.0.1-test'
  vim.cmd('EnyalRecall anything')
  require('enyal.client').close()
  version.version = real

  vim.cmd('EnyalRecall ' .. string.rep('q', 5000)) -- -32602: over recall's 4096
  require('enyal.commands').actions.forget({ id = 'ffffffff-0000-0000-0000-000000000000' }, 0) -- -32001
  vim.cmd('enew')
  vim.cmd('EnyalFile') -- no file
  H.answer.select = { '^fact$' }
  H.answer.input = { '' }
  require('enyal').remember({ args = string.rep('x', 70000) }) -- -32003: content over 64 KiB
end)
