"""An executor that misbehaves in one way, named by its argument: the faults a session must meet
failing closed. `python fake_executor.py MODE`."""

from __future__ import annotations

import json
import os
import sys

HELLO = {
    "hello": "bastion-execute",
    "protocol": 1,
    "version": "0",
    "kind": "remote",
    "ref": "fake",
    "landlock": 0,
    "root": "/fake",
    "real_root": "/fake",
    "env": {"PATH": "/usr/bin:/bin"},
}


def send(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(mode: str) -> None:
    if mode == "not-bastion":
        print("Welcome to the host!")
        return
    if mode == "silent":
        sys.stdin.read()  # never says hello
        return
    send({**HELLO, "protocol": 99} if mode == "newer" else HELLO)
    for line in sys.stdin:
        request = json.loads(line)
        ident = request.get("id")
        if mode == "stall":
            continue  # reads every request, answers none
        if mode == "cut":
            os._exit(0)  # the connection drops mid-call
        if mode == "cut-mid-exec" and request.get("op") == "exec":
            send({"id": ident, "output": "aGFsZg=="})  # "half"
            os._exit(0)
        if mode == "not-json":
            sys.stdout.write("{not json\n")
        elif mode == "wrong-id":
            send({"id": ident + 1000, "ok": None})
        elif mode == "bad-stat":
            send({"id": ident, "ok": [1, 2, 3]})
        elif mode == "bad-error":
            send({"id": ident, "error": {"errno": "ENOENT"}})
        elif mode == "huge":
            sys.stdout.write("[" + "0," * (40 << 20))
            sys.stdout.flush()
            os._exit(0)
        elif mode == "lstat-then-stall" and request.get("op") == "lstat":
            send({"id": ident, "error": {"errno": 2, "kind": "os", "message": "No such file"}})
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1])
