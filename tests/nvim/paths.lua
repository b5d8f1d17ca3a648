-- enyal.paths for the environments in $ENYAL_TEST_CASES (JSON: [{env, cwd}...]).
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  local cases = vim.fn.json_decode(vim.env.ENYAL_TEST_CASES)
  H.out.sockets = {}
  H.out.dbs = {}
  for _, case in ipairs(cases) do
    table.insert(H.out.sockets, require('enyal.paths').socket(case.env, case.cwd))
    table.insert(H.out.dbs, require('enyal.paths').db(case.env, case.cwd))
  end
end)
