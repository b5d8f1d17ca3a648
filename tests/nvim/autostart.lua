-- No daemon runs: the first command starts one through `enyal` and succeeds.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  H.out.connected_before = require('enyal.client').connected()
  H.answer.select = { '^decision$' }
  H.answer.input = { 'deploy' }
  vim.cmd('EnyalRemember! Deploys go through the staging branch first')
  H.out.connected_after = require('enyal.client').connected()
end)
