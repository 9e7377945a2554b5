# SPDX-License-Identifier: MIT
"""Build step of the heel package: finds the installed libheel through
`pkg-config heel` (PKG_CONFIG_PATH for another prefix) and writes its
path into heel/_libpath.py, so that the package loads that library and
no other one found by name at run time. The build fails, saying why,
when there is none."""
import os
import shlex
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


def libheel_path():
    pkg_config = os.environ.get("PKG_CONFIG", "pkg-config")
    try:
        flags = subprocess.run([pkg_config, "--libs-only-L", "heel"], check=True,
                               capture_output=True, text=True).stdout
        libdir = subprocess.run([pkg_config, "--variable=libdir", "heel"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("heel: pkg-config finds no libheel (heel.pc): install heel first "
                         "(make install), or point PKG_CONFIG_PATH at the directory holding "
                         f"heel.pc ({e})")
    # -L carries PKG_CONFIG_SYSROOT_DIR (a staged install); libdir does
    # not, and pkg-config drops -L for the loader's own directories.
    for word in shlex.split(flags):
        if word.startswith("-L"):
            libdir = word[2:]
    path = os.path.join(libdir, "libheel.so.0")
    if not os.path.isfile(path):
        raise SystemExit(f"heel: pkg-config names {libdir}, which holds no libheel.so.0")
    return path


class BuildPy(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "heel", "_libpath.py")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write("# Written by setup.py from `pkg-config heel`.\n")
            f.write(f"LIBHEEL = {libheel_path()!r}\n")


setup(cmdclass={"build_py": BuildPy})
