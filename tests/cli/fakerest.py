"""A fake lightraild's RESTCONF server for CLI tests: what a client does
against a daemon older or stranger than this tree's.

A test writes a handler (a subclass of Handler whose do_GET/do_POST call
self.reply()) and calls serve(Handler, port_file): the server listens on
127.0.0.1, an ephemeral port, written to port_file once listening (by a
rename, so a reader never sees half of it), until the test kills it by
its PID."""
import http.server
import json
import os


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, code, body=None):
        """Answers with HTTP code and body as RFC 7951 JSON (none if
        body is None)."""
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(code)
        if body is not None:
            self.send_header("Content-Type", "application/yang-data+json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        """The request's body, decoded ("" when it has none)."""
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode() if n else ""

    def log_message(self, *a):
        pass


def errors(tag, message, path=None, status_type="protocol"):
    """An RFC 8040 errors body of one error."""
    e = {"error-type": status_type, "error-tag": tag,
         "error-message": message}
    if path is not None:
        e["error-path"] = path
    return {"ietf-restconf:errors": {"error": [e]}}


def serve(handler, port_file):
    s = http.server.HTTPServer(("127.0.0.1", 0), handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(s.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    s.serve_forever()
