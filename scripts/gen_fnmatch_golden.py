"""Golden for src/text/fnmatch.ts: Python's fnmatch.fnmatchcase over env-key-like names and glob patterns.

Run: python3 scripts/gen_fnmatch_golden.py > fixtures/text/fnmatch.json
"""
import fnmatch
import json
import sys

sys.path.insert(0, "scripts")
from golden_meta import meta  # noqa: E402

NAMES = ["AWS_SECRET_ACCESS_KEY", "aws_secret", "HOME", "PATH", "MY_TOKEN", "TOKEN", "HF_TOKEN", "a-b", "a]b",
         "x[y", "[", "]", "!", "a*b", "abc", "ABC", "\u00e9", "a\\b", "-", "zz", "secret.key", "GITHUB_TOKEN_2",
         "", "a\nb", "\U0001f600", "A.B"]
PATTERNS = ["*", "*TOKEN*", "AWS_*", "*_KEY", "?OME", "[A-Z]*", "[!A-Z]*", "[]]*", "[!]]*", "a[*]b", "x[y", "[",
            "[z-a]", "[z-a]bc", "[a-c]bc", "[!]", "*SECRET*", "a\\b", "a[\\]b", "[-]", "[a-]", "*.key",
            "GITHUB_TOKEN_?", "[!a-z]*", "\u00e9", "[\u00e9]", "", "?", "a?b", "**", "A.B", "A?B", "[.]*",
            "[^a]*", "(a)", "a|b", "a{1}", "$", "\U0001f600", "?\n?"]

cases = [[n, p, fnmatch.fnmatchcase(n, p)] for n in NAMES for p in PATTERNS]
json.dump({"meta": meta("scripts/gen_fnmatch_golden.py",
                        "python3 scripts/gen_fnmatch_golden.py > fixtures/text/fnmatch.json"),
           "cases": cases}, sys.stdout, ensure_ascii=False)
sys.stdout.write("\n")
