-- No daemon, and `enyal` cannot start one: a clear message, within the bounded wait.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  require('enyal').setup({ cmd = { vim.env.ENYAL_TEST_MISSING } })
  vim.cmd('EnyalRecall anything')
  require('enyal').setup({ cmd = { 'sh', '-c', 'echo "the model is missing" >&2; exit 3', 'sh' } })
  vim.cmd('EnyalRecall anything')
end)
