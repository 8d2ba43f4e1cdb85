"""The shared core: what every memory layer uses and that imports no layer.

errors (one error type, a stable `code`), ids (public ids), tokens (offline token
counting), text (the validated-text type every input passes), labels (every section
label and boundary text, one registry), fencing (the sanitizer built from that
registry) and redline (sensitive personal data).
"""
