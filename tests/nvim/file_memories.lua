-- :EnyalFile and the virtual lines of a file's memories (setup({ virtual_text = true })),
-- refreshed when the file is written.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')


H.run(function()
  require('enyal').setup({ virtual_text = true, signs = true })
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ENYAL_TEST_FILE))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(10000, function()
    return #H.virt_lines(buf) > 0
  end, 20)
  H.out.virt_before = H.virt_lines(buf)
  -- The sign: 0.7's extmark details do not report sign_text, but the sign column it opens
  -- (signcolumn=auto) widens the window's text offset from 0 to 2.
  vim.cmd('redraw')
  H.out.textoff = vim.fn.getwininfo(vim.api.nvim_get_current_win())[1].textoff

  require('enyal').call('remember', {
    content = 'The retry loop here backs off exponentially',
    scope = 'file',
    scope_path = vim.env.ENYAL_TEST_FILE,
  })
  vim.cmd('write')
  vim.wait(10000, function()
    return #H.virt_lines(buf) > #H.out.virt_before
  end, 20)
  H.out.virt_after_write = H.virt_lines(buf)

  H.answer.select = { 'stale' }
  vim.cmd('EnyalFile')
  H.out.opened = H.lines(0)
end)
