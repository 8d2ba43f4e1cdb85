"""The shared core: what every memory layer uses and that imports no layer.

errors (one error type, a stable `code`), ids (public ids), tokens (offline token
counting), text (the validated-text type every input passes), labels (every section
label and boundary text, one registry), fencing (the sanitizer built from that
registry), normalize (the one fold for matching untrusted text: digits in any script,
invisible characters, look-alike letters, traditional Chinese), redline (sensitive
personal data, a table of named rules over normalize()d text) and sql (the helpers of
the read path's hand-written SQL, for SQLite and PostgreSQL).
"""
