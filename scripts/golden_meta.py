"""The header every golden file under fixtures/ starts with: one place for its shape.

A JSON Lines golden starts with the line `{"meta": meta(...)}`; a JSON golden has a top-level "meta" key.
test/goldens-header.test.ts checks that the generator named here exists, and `npm run goldens`
(scripts/regenerate-goldens.mjs) runs the `command` of every golden it finds.
"""
import sys


def meta(generator: str, command: str, **extra) -> dict:
    """`generator`: the script's path from the repo root; `command`: the exact command that wrote the file."""
    return {"generator": generator, "command": command, "python": sys.version.split()[0], **extra}
