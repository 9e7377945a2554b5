#!/bin/sh
# The project's own test runner, as projects have them.
cd "$(dirname "$0")" && exec python3 -m unittest discover -s tests -t . -q
