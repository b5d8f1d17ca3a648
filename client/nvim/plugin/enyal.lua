-- Enyal's commands. The modules load on first use (lua/enyal/), so this costs nothing at
-- startup. Needs Neovim 0.7 (nvim_create_user_command).
if vim.g.loaded_enyal == 1 or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_enyal = 1

local command = vim.api.nvim_create_user_command

command('EnyalRecall', function(opts)
  require('enyal').recall(opts.args)
end, { nargs = '?', desc = 'Enyal: search memories, open one' })

command('EnyalRemember', function(opts)
  require('enyal').remember({ args = opts.args, range = opts.range, line1 = opts.line1, line2 = opts.line2, bang = opts.bang })
end, { nargs = '?', range = true, bang = true, desc = 'Enyal: remember the selection, a text, or what you type' })

command('EnyalFile', function()
  require('enyal').file()
end, { nargs = 0, desc = 'Enyal: memories of the current file' })

command('EnyalBrief', function()
  require('enyal').brief()
end, { nargs = 0, desc = 'Enyal: the project brief' })
