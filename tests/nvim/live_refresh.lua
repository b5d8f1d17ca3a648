-- The virtual lines of a file's memories follow the daemon's change notifications: a memory
-- remembered for the open file by another client (the CLI, a process of its own) shows up
-- without any buffer event.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')


H.run(function()
  require('enyal').setup({ virtual_text = true })
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.ENYAL_TEST_FILE))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(10000, function()
    return #H.virt_lines(buf) > 0 and require('enyal.live').active()
  end, 20)
  H.out.virt_before = H.virt_lines(buf)
  H.out.listening = require("enyal.live").active()
  H.out.live_error = require("enyal.live").last_error()

  -- From here on, count the buffer events that would refresh the lines the old way.
  H.out.buffer_events = 0
  vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost', 'BufWinEnter', 'FocusGained' }, {
    callback = function()
      H.out.buffer_events = H.out.buffer_events + 1
    end,
  })
  local cli = vim.fn.system({
    'enyal', 'remember', 'Another client says: keep this file free of globals',
    '--scope', 'file', '--scope-path', vim.env.ENYAL_TEST_FILE,
  })
  H.out.cli_status = vim.v.shell_error
  H.out.cli = cli
  vim.wait(10000, function()
    return #H.virt_lines(buf) > #H.out.virt_before
  end, 20)
  H.out.virt_after = H.virt_lines(buf)
end)
