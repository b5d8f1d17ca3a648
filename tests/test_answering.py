"""A request on a connection (the socket's, or the hook endpoint's) counts, for the
background work that steps aside for requests (service/core/traffic.py: a replica's
catch-up, the text merges), until its answer is written, not only until its verb
returns: the loop thread still encodes and writes the answer, and needs the
interpreter's lock for it. Not for ever: an answer its client leaves unread stops
counting after UNREAD_SECONDS.

The daemon's own connection handling (Daemon.serve_connection) on the real engine, in
this process so that the count can be read; the client end of a socket pair that does
not read, so an answer larger than the buffers between them waits in its write."""

from __future__ import annotations

import asyncio
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from daemon_support import frame, isolated_env
from enyal_daemon.server import daemon as daemon_module
from enyal_daemon.server.daemon import Daemon
from enyal_daemon.server.dispatch import Dispatcher
from enyal_daemon.server.hook_http import HookEndpoint
from enyal_daemon.service.core import traffic
from enyal_daemon.service.memory import memories
from enyal_protocol import paths as enyal_paths
from enyal_protocol import wire as p

# Sentences of a long note: three of them make an export page far larger than the
# buffers a subscriber's connection keeps (session.py: SEND_BUFFER, WRITE_HIGH_WATER).
NOTE = " ".join(f"Step {i} of the deploy pipeline waits for stage {i + 1}." for i in range(350))


def test_background_work_steps_aside_until_the_answer_is_written(
    memory: Any, tmp_path: Path
) -> None:
    for k in range(3):
        memories.remember(memory, p.RememberParams(content=f"Note {k}. {NOTE}", scope="global"))

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        daemon = Daemon(paths=enyal_paths.resolve(isolated_env(tmp_path / "home")), engine=memory)
        pool = ThreadPoolExecutor(2)
        dispatcher = Dispatcher(daemon.handlers(loop), pool, memory.db_path)
        ours, theirs = socket.socketpair()
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        served = asyncio.create_task(daemon.serve_connection(dispatcher, reader, writer))
        try:
            # The subscription narrows the connection's buffers; the export's answer
            # then waits in its write, the client reading nothing.
            theirs.sendall(frame("subscribe", {}, 1) + frame("export", {"limit": 10}, 2))
            for _ in range(3000):
                if traffic.in_flight() == 0 and _waiting(theirs) > 1000:  # past subscribe's
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # the export's verb returned; its answer is stuck
            assert traffic.in_flight() == 0  # no verb runs: what is left is the write
            waited = await loop.run_in_executor(None, traffic.step_aside, 0.2)
            assert waited >= 0.2, "background work went on while an answer was being written"
            # A client that leaves its answer unread past UNREAD_SECONDS holds nothing back
            await asyncio.sleep(daemon_module.UNREAD_SECONDS)
            unread = _waiting(theirs)
            waited = await loop.run_in_executor(None, traffic.step_aside, 5.0)
            assert waited < 0.5, "an answer left unread held background work back"
            assert _waiting(theirs) == unread and not served.done()  # still unread, open
            theirs.setblocking(False)
            got = b""
            while got.count(b"\n") < 2:  # the client reads both answers now
                try:
                    got += theirs.recv(1 << 20)
                except BlockingIOError:
                    await asyncio.sleep(0.01)
            assert len(got) > 3 * len(NOTE)  # the three notes, whole
            waited = await loop.run_in_executor(None, traffic.step_aside, 5.0)
            assert waited < 1.0, "still counted once its answer was written"
        finally:
            theirs.close()  # the connection ends as a client's does: the server sees EOF
            await asyncio.wait_for(served, 10)
            pool.shutdown()

    asyncio.run(scenario())


def _waiting(sock: socket.socket) -> int:
    """Bytes the client end holds unread."""
    try:
        return len(sock.recv(1 << 20, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except BlockingIOError:
        return 0


def test_a_hook_request_counts_from_its_connection_to_its_answer(tmp_path: Path) -> None:
    """The hook endpoint's connection is its one request: background work steps aside
    from its accept (here, a head half sent) until its answer is written, not only
    during each call the hook makes. No verb runs (the request never completes), so the
    dispatcher's handlers are never called: they are stand-ins."""

    def unused(_: Any) -> Any:
        raise AssertionError("no verb should run")

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        pool = ThreadPoolExecutor(1)
        endpoint = HookEndpoint(port, "token", Dispatcher(dict.fromkeys(p.METHODS, unused), pool))

        async def track(served: Any) -> None:
            await served

        server = await endpoint.start(track)
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /hook/prompt-submit HTTP/1.1\r\nHost: 127.0.0.1")
            await writer.drain()
            await asyncio.sleep(0.1)
            waited = await loop.run_in_executor(None, traffic.step_aside, 0.2)
            assert waited >= 0.2, "background work went on while a hook's request was open"
            writer.close()  # the request ends unfinished: refused (400), and answered
            await reader.read()
            waited = await loop.run_in_executor(None, traffic.step_aside, 5.0)
            assert waited < 1.0, "still counted once its answer was written"
        finally:
            server.close()
            await server.wait_closed()
            endpoint.close()
            pool.shutdown()

    asyncio.run(scenario())
