"""A real MCP server for the tests, written with the SDK's MCPServer (mcp 2's FastMCP).

    python mcp_server.py stdio          tools over stdio
    python mcp_server.py http PORT      the same tools over streamable HTTP on 127.0.0.1:PORT, which
                                        answers only a request with `Authorization: Bearer letmein`
    python mcp_server.py hang           never answers (a server that hangs at start)
    python mcp_server.py exit           exits at once, saying why on standard error
    python mcp_server.py odd-names      tools whose names cannot be offered, or collide

Tools: echo, search, env (its environment's names), parent (its parent's /proc environ and cmdline,
in hexadecimal, so no redaction could hide what it holds), huge (a result of N characters), sleep
(never ends), crash (the process exits mid-call), grow (adds the tool `later` and says the list
changed), where (its working directory), hold (writes `held` in its working directory, then never
ends: a test waits for the file, then cuts what carries the call).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer


def _server() -> MCPServer:
    server = MCPServer("bastion-test")

    @server.tool(description="Say the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Search the docs.")
    def search(query: str) -> str:
        return f"found 1 page for {query}"

    @server.tool(description="The names of the variables in the server's environment.")
    def env() -> str:
        return " ".join(sorted(os.environ))

    @server.tool(description="The parent's /proc environ and cmdline, in hexadecimal (or why not).")
    def parent() -> str:
        found = []
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{os.getppid()}/{name}", "rb") as handle:
                    found.append(f"{name}: {handle.read().hex()}")
            except OSError as err:
                found.append(f"{name}: {err.strerror}")
        return "\n".join(found)

    @server.tool(description="A result of `size` characters.")
    def huge(size: int) -> str:
        return "x" * size

    @server.tool(description="Never answers.")
    def sleep() -> str:
        time.sleep(3600)
        return "woke"

    @server.tool(description="The server's working directory.")
    def where() -> str:
        return os.getcwd()

    @server.tool(description="Writes `held` where it runs, then never answers.")
    def hold() -> str:
        with open("held", "w") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(3600)
        return "woke"

    @server.tool(description="The server dies during the call.")
    def crash() -> str:
        sys.stderr.write("test server: crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool(description="Adds the tool `later`.")
    async def grow(ctx: Context) -> str:
        server.add_tool(lambda: "later it is", name="later", description="Added by grow.")
        await ctx.session.send_tool_list_changed()
        return "grown"

    return server


def _odd() -> MCPServer:
    server = MCPServer("odd")
    for name in ("fine", "has.dot", "has__two", "x" * 70, "Fine"):
        server.add_tool(lambda: "ok", name=name, description="odd")
    return server


def main(argv: list[str]) -> None:
    mode = argv[0]
    if mode == "hang":
        time.sleep(3600)
    elif mode == "exit":
        sys.stderr.write("test server: cannot start, no database\n")
        sys.exit(2)
    elif mode == "odd-names":
        _odd().run("stdio")
    elif mode == "http":
        import anyio
        import uvicorn
        from starlette.types import ASGIApp, Receive, Scope, Send

        app = _server().streamable_http_app(stateless_http=False)

        def guarded(inner: ASGIApp) -> ASGIApp:
            async def check(scope: Scope, receive: Receive, send: Send) -> None:
                headers = dict(scope.get("headers", []))
                if scope["type"] == "http" and headers.get(b"authorization") != b"Bearer letmein":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"no"})
                    return
                await inner(scope, receive, send)

            return check

        config = uvicorn.Config(guarded(app), host="127.0.0.1", port=int(argv[1]), log_level="warning")
        anyio.run(uvicorn.Server(config).serve)
    else:
        _server().run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
