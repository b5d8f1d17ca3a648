-- The transport against a server that answers awkwardly, listening on $ENYAL_SOCKET in this
-- same Neovim (a libuv pipe server; no daemon). Connection 1 is closed without an answer
-- (the client must reach the socket again and send the request once more); on connection 2
-- that request is answered and the next one refused with -32006 (shutting down: connect
-- again, resend); on connection 3 pipelined responses come out of order, two in one
-- write, and one split over three writes.
local H = dofile(vim.env.ENYAL_NVIM_TESTS .. '/harness.lua')
local uv = vim.loop

local received = {} -- every request line, by connection number
local held = {} -- requests held back, by connection number

local function reply(id, result)
  return vim.json.encode({ jsonrpc = '2.0', id = id, result = result }) .. '\n'
end

local server = H.fake_daemon(function(sock, line, n)
  received[n] = received[n] or {}
  held[n] = held[n] or {}
  table.insert(received[n], line)
  if n == 1 then
    sock:close() -- hang up without answering, like a daemon exiting after idling
    return false
  end
  local req = vim.json.decode(line)
  if n == 2 and #received[n] == 2 then
    sock:write(vim.json.encode({
      jsonrpc = '2.0',
      id = req.id,
      error = { code = -32006, message = 'the daemon is shutting down' },
    }) .. '\n')
  elseif #received[n] == 1 then
    sock:write(reply(req.id, { n = req.params.n }))
  else
    table.insert(held[n], req)
  end
  local h = held[n]
  if #h == 3 then
    -- out of order; the second and third in one write; the first split over three
    -- writes, one of them ending inside a UTF-8 character
    local first = reply(h[1].id, { n = h[1].params.n, text = 'é, 中文 and a \\n: \n' })
    sock:write(reply(h[3].id, { n = h[3].params.n }) .. reply(h[2].id, { n = h[2].params.n }))
    local cut = first:find('中', 1, true) + 1 -- inside the character's three bytes
    sock:write(first:sub(1, 5))
    local t = uv.new_timer()
    t:start(30, 0, function()
      sock:write(first:sub(6, cut))
      sock:write(first:sub(cut + 1))
      t:close()
    end)
  end
end)

H.run(function()
  local client = require('enyal.client')
  local results = {}
  local first, err = client.call('echo', { n = 1 }) -- sent twice: the first connection hangs up
  H.out.first_err = err
  results[1] = first
  -- Answered -32006 (shutting down) on the second connection: sent again on a third.
  local stopping, serr = client.call('echo', { n = 'stopping' })
  H.out.stopping = stopping or serr
  -- Three more, pipelined on the third connection before any answer.
  for n = 2, 4 do
    client.request('echo', { n = n }, function(e, r)
      results[n] = r or e
    end)
  end
  vim.wait(5000, function()
    return results[2] ~= nil and results[3] ~= nil and results[4] ~= nil
  end, 10)
  H.out.results = results
  H.out.received = received
  server:close()
end)
