"""Pure rules every room applies: time, scopes, scores and ranking, limits,
conflict and expiry rules, redaction. Imports no other room."""
