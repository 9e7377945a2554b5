"""Serves this directory on 127.0.0.1:PORT until killed: the project's dev server."""
import http.server
import os
import sys

os.chdir(os.path.dirname(os.path.abspath(__file__)))
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])),
                                http.server.SimpleHTTPRequestHandler).serve_forever()
