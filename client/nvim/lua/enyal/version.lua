-- The Enyal release and protocol this plugin was written against: sent as `enyal_expect`
-- on a connection's first request (tests/test_nvim.py checks these against
-- enyal_protocol.__version__ and wire.PROTOCOL_VERSION).
return {
  version = '0.1.0',
  protocol = 1,
}
