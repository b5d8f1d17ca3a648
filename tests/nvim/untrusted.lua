-- ENYAL_SOCKET names something that is not our socket: a clear message, nothing sent, no
-- daemon started (the `enyal` to start one is missing, which would say so instead).
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  require('enyal').setup({ cmd = { vim.env.ENYAL_TEST_MISSING } })
  vim.cmd('EnyalRecall anything')
end)
