-- :EnyalBrief shows the daemon's brief of the project (its Markdown) in a float.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  vim.cmd('EnyalBrief')
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      H.out.float = H.lines(vim.api.nvim_win_get_buf(win))
    end
  end
end)
