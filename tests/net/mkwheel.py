#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the test host's package index: one tiny pure-Python wheel
# (heeltestpkg 0.1, with METADATA, WHEEL and a RECORD that pip verifies)
# and a PEP 503 simple index pointing at it, under WWW/simple and
# WWW/packages. No build backend: the wheel is a zip written here.
# Usage: mkwheel.py WWW
import base64
import hashlib
import os
import sys
import zipfile

NAME, VERSION = "heeltestpkg", "0.1"
DIST = "%s-%s" % (NAME, VERSION)
WHEEL_NAME = DIST + "-py3-none-any.whl"


def record_hash(data):
    d = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def build_wheel(path):
    files = {
        NAME + "/__init__.py": b'MESSAGE = "heel test package"\n',
        DIST + ".dist-info/METADATA": (
            "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: a package the heel network tests serve\n" % (NAME, VERSION)).encode(),
        DIST + ".dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: heel-mkwheel\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    }
    record = "".join("%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, d in files.items())
    record += DIST + ".dist-info/RECORD,,\n"
    files[DIST + ".dist-info/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            # A fixed date: the same bytes on every run.
            info = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            z.writestr(info, d)


def main():
    www = sys.argv[1]
    pkgs = os.path.join(www, "packages")
    proj = os.path.join(www, "simple", NAME)
    os.makedirs(pkgs, exist_ok=True)
    os.makedirs(proj, exist_ok=True)
    whl = os.path.join(pkgs, WHEEL_NAME)
    build_wheel(whl)
    with open(whl, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(www, "simple", "index.html"), "w") as f:
        f.write('<!DOCTYPE html>\n<html><body>\n<a href="%s/">%s</a>\n</body></html>\n' % (NAME, NAME))
    with open(os.path.join(proj, "index.html"), "w") as f:
        f.write('<!DOCTYPE html>\n<html><body>\n<a href="../../packages/%s#sha256=%s">%s</a>\n'
                '</body></html>\n' % (WHEEL_NAME, digest, WHEEL_NAME))


if __name__ == "__main__":
    main()
