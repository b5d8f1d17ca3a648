-- Remember two lines of a file buffer (a range, as a visual selection gives), recall them
-- through the picker, open the memory, copy its id and forget it with its buffer keys.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
H.run(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ENYAL_TEST_FILE))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, {
    'import os',
    'Lint with ruff, never flake8',
    'Format with ruff format too',
    'x = 1',
  })
  H.answer.select = { '^convention$' }
  H.answer.input = { 'lint, style' }
  vim.cmd('2,3EnyalRemember')

  -- No argument: the query is asked for; the first hit is chosen.
  H.answer.input = { 'which linter do we use' }
  H.answer.select = { 1 }
  vim.cmd('EnyalRecall')
  local buf = vim.api.nvim_get_current_buf()
  H.out.entry_buffer = {
    name = vim.api.nvim_buf_get_name(buf),
    buftype = vim.api.nvim_buf_get_option(buf, 'buftype'),
    modifiable = vim.api.nvim_buf_get_option(buf, 'modifiable'),
    id = vim.b.enyal_entry_id,
    lines = H.lines(buf),
  }
  vim.cmd('normal gy')
  H.out.register = vim.fn.getreg('"')
  vim.cmd('normal dd')
  H.out.lines_after_forget = H.lines(buf)
  -- Forgotten memories are out of recall.
  H.answer.select = { 1 }
  vim.cmd('EnyalRecall which linter do we use')
end)
