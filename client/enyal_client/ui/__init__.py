"""`enyal ui`: a local web page onto the daemon (server.py), with its static front end
in static/ (plain HTML, JS and CSS: no build step, no vendored library)."""
