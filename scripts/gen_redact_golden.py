"""Golden for src/redact/text.ts: the original's path and IP scrubbing (ROCm/aorta probe/redaction.py, newest
regexes and order as ../shared/spec/upstream-probe-runs.md §1.3 quotes them), run with Python's `re` and
`ipaddress` over a generated corpus: one file's text per case, placeholders numbered per file in order of first
sight, each occurrence counted; long lines; and `bytes` cases, input that is not valid UTF-8, decoded with
`errors="replace"` as the original opens a text artifact.

Run: python3 scripts/gen_redact_golden.py > fixtures/redact/paths-ips.json
"""
import ipaddress
import json
import random
import re
import sys

sys.path.insert(0, "scripts")

_PATH_RE = re.compile(r"(?<![A-Za-z0-9_.-])/(?:[A-Za-z0-9_.\-]+/)+[A-Za-z0-9_.\-]+")
_IPV4_RE = re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\b")
_IPV6_BRACKETED_RE = re.compile(r"\[([0-9a-fA-F:.]+)\]")
_IPV6_UNBRACKETED_RE = re.compile(
    r"(?<![0-9a-fA-F:.])"
    r"(?:"
    r"(?:[0-9a-fA-F]{0,4}:)+[0-9a-fA-F]{0,4}|"
    r"::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4}|"
    r"[0-9a-fA-F]{0,4}::(?:[0-9a-fA-F]{0,4}:){0,6}[0-9a-fA-F]{0,4}"
    r")"
    r"(?![0-9a-fA-F:.])"
)


def version(s):
    try:
        return ipaddress.ip_address(s).version
    except ValueError:
        return None


def scrub(text):
    idx = {"PATH": {}, "IPV4": {}, "IPV6": {}}
    counts = {"paths": 0, "ips": 0}

    def ph(kind, value):
        d = idx[kind]
        if value not in d:
            d[value] = len(d)
        return f"<{kind}:{d[value]}>"

    def path(m):
        counts["paths"] += 1
        return ph("PATH", m.group(0))

    def v6b(m):
        if version(m.group(1)) != 6:
            return m.group(0)
        counts["ips"] += 1
        return ph("IPV6", m.group(1))

    def v6(m):
        if version(m.group(0)) != 6:
            return m.group(0)
        counts["ips"] += 1
        return ph("IPV6", m.group(0))

    def v4(m):
        if version(m.group(0)) != 4:
            return m.group(0)
        counts["ips"] += 1
        return ph("IPV4", m.group(0))

    text = _PATH_RE.sub(path, text)
    text = _IPV6_BRACKETED_RE.sub(v6b, text)
    text = _IPV6_UNBRACKETED_RE.sub(v6, text)
    text = _IPV4_RE.sub(v4, text)
    return text, counts


def main():
    from golden_meta import meta

    FIXED = [
        "host 192.168.0.1 and 2001:db8::1 here",
        "loopback ::1 ok", "fe80 link fe80::1 ok", "bracket [::1] ok", "url http://[::1]:8080/path",
        "time 12:30 and 10:15:30 stay", "file:///home/user/secret and //host/home/x/y",
        "/usr/bin /tmp / and /a/b/ trailing", "/home/u/a /home/u/a /home/u/b /opt/x/y /home/u/a",
        "01.2.3.4 leading zero, 256.1.1.1 too big, 1.2.3.4.5 five", "[2001:db8::1]:443 and [1.2.3.4]",
        "::ffff:192.0.2.1 mapped", "1::2::3 two skips, :::: colons, a:b:c:d:e:f:1:2 eight, 1:2:3:4:5:6:7:8:9 nine",
        "é192.168.0.1 after a letter, ٣1.2.3.4 after an Arabic-Indic digit, 1.2.3.4٣", "x_10.0.0.1 and -10.0.0.1",
        "LD_LIBRARY_PATH=/home/customer/lib:/opt/rocm/lib", "dead:beef and cafe::babe:: and ::",
        "/a/b\r\n10.1.2.3\r\n", "no secrets here", "",
    ]
    WORDS = ["/home/alice/run", "/opt/rocm-6.1/bin/hipcc", "10.0.0.1", "192.168.1.254", "255.255.255.255",
             "0.0.0.0", "999.1.1.1", "fe80::1", "2001:db8:0:0:0:0:2:1", "::", "[::1]", "12:30", "a:b", "::ffff:1.2.3.4",
             "/tmp", "/x/y", "file:///srv/data/x.bin", "host-1.cluster.local", "1.2.3", "ab:cd:ef::1", "x", "-", " ", "\n",
             "=", ":", "/", ".", "[", "]", "é", "٣"]
    rng = random.Random(20261206)
    cases = FIXED + ["".join(rng.choice(WORDS) + rng.choice([" ", "", ",", "\n", "=", ":"]) for _ in range(rng.randint(1, 12)))
                     for _ in range(400)]
    # Long lines (one window still: the hard split starts at 2.5 M characters) and bytes that are not UTF-8, decoded as
    # the original decodes a text artifact (`errors="replace"`), scrubbed, written back as UTF-8.
    cases += [" ".join(rng.choice(WORDS) for _ in range(3_000)), "x" * 9_000 + " /home/a/b " + "y" * 9_000]
    BYTES = [b"path /home/\xffuser/x and 10.0.0.1\n", b"\xe2\x82 /a/b\r\n", b"\xf0\x9f\x98 10.0.0.1",
             b"\xc0\xaf/x/y", b"\xed\xa0\x80 ::1 \xed\xbf\xbf", b"\xf4\x90\x80\x80 /p/q", b"\x80\x80/r/s\x80",
             b"10.0.0\xff.1 and 10.0.0.1\xff", b"[::1\xff] fe80::1\xfe\r\n", b"\xef\xbb\xbf/bom/first 1.2.3.4",
             b"\xe0\x80\x80 \xf8\x88\x80\x80\x80 /s/t", b"ok \xc3\xa9 /h/\xc3\xa9/x 10.1.1.1\r"]
    byte_words = [w.encode() for w in WORDS] + [b"\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\x80", b"\xed\xa0\x80", b"\r\n"]
    BYTES += [b"".join(rng.choice(byte_words) + rng.choice([b" ", b"", b"\n"]) for _ in range(rng.randint(1, 16)))
              for _ in range(100)]
    out = {"meta": meta("scripts/gen_redact_golden.py", "python3 scripts/gen_redact_golden.py > fixtures/redact/paths-ips.json"),
           "cases": []}
    for c in cases:
        text, counts = scrub(c)
        out["cases"].append({"input": c, "output": text, "paths": counts["paths"], "ips": counts["ips"]})
    out["bytes"] = []
    for b in BYTES:
        text, counts = scrub(b.decode("utf-8", errors="replace"))
        out["bytes"].append({"input_hex": b.hex(), "output_hex": text.encode("utf-8").hex(), "paths": counts["paths"],
                             "ips": counts["ips"]})
    json.dump(out, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
