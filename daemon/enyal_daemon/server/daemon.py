"""`enyal daemon`: the process that owns the database and the warm model.

Life of the process:
  lock the pidfile (a second daemon on the same home exits) -> load and verify
  the model -> open the database (migrate, load the vector index) -> listen on
  the Unix socket -> serve -> on SIGTERM/SIGINT stop accepting, let in-flight
  requests finish, drain the writer, checkpoint the WAL, remove the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import signal
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from enyal_client import __version__
from enyal_client import protocol as p
from enyal_client.paths import Paths, ensure_private_dir

from ..embedder.model_files import locate
from ..embedder.onnx import Embedder
from ..errors import EnyalError
from ..service import transfer
from ..service.memory import Memory
from ..store import db
from .dispatch import Dispatcher, Handler, error_frame
from .peer import same_user

log = logging.getLogger("enyal.daemon")

TOUCH_FLUSH_SECONDS = 2.0
MAX_IN_FLIGHT_PER_CONNECTION = 64


class AlreadyRunning(EnyalError):
    pass


def lock_pidfile(path: Path) -> IO[str]:
    """Hold an exclusive lock on the pidfile for the life of the process."""
    ensure_private_dir(path.parent)
    f = path.open("a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.seek(0)
        other = f.read().strip() or "?"
        f.close()
        raise AlreadyRunning(
            f"another enyal daemon (pid {other}) already serves {path.parent}"
        ) from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def bind_socket(path: Path) -> socket.socket:
    ensure_private_dir(path.parent)
    # We hold the pidfile lock, so a socket file left here belongs to a dead daemon.
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(128)
    sock.setblocking(False)
    return sock


@dataclass
class Daemon:
    paths: Paths
    memory: Memory
    started: float = field(default_factory=time.monotonic)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    def status(self, _: p.StatusParams) -> p.Status:
        files = self.memory.embedder.files
        return p.Status(
            version=__version__,
            protocol=p.PROTOCOL_VERSION,
            pid=os.getpid(),
            uptime_s=round(time.monotonic() - self.started, 3),
            home=str(self.paths.home or self.paths.data_dir),
            db_path=str(self.memory.db_path),
            socket=str(self.paths.socket),
            entries=self.memory.count(),
            model=p.ModelInfo(
                id=files.model_id,
                dim=self.memory.embedder.dim,
                path=str(files.model),
                sha256=files.model_sha256,
                source=files.source,
            ),
            sqlite_version=db.sqlite_version(),
            sqlite_vec_version=db.vec_version(self.memory.reader()),
        )

    def handlers(self, loop: asyncio.AbstractEventLoop) -> dict[str, Handler]:
        m = self.memory

        def shutdown(_: p.ShutdownParams) -> p.ShutdownResult:
            loop.call_soon_threadsafe(self.stop.set)
            return p.ShutdownResult(stopping=True)

        return {
            "remember": m.remember,
            "recall": m.recall,
            "recall_by_scope": m.recall_by_scope,
            "get": m.get,
            "update": m.update,
            "forget": m.forget,
            "restore": m.restore,
            "stats": m.stats,
            "import": lambda params: transfer.import_lines(m, params),
            "export": lambda params: transfer.export_page(m, params),
            "status": self.status,
            "shutdown": shutdown,
        }

    async def serve_connection(
        self, dispatcher: Dispatcher, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None and not same_user(sock):
            log.warning("refused a connection from another user")
            writer.close()
            return
        slots = asyncio.Semaphore(MAX_IN_FLIGHT_PER_CONNECTION)
        pending: set[asyncio.Task[None]] = set()

        async def answer(frame: bytes) -> None:
            try:
                out = await dispatcher.handle(frame)
                if out is not None and not writer.is_closing():
                    writer.write(out)
                    await writer.drain()
            except (ConnectionError, RuntimeError):
                pass  # the client went away; its write (if any) is committed regardless
            except Exception:
                log.exception("answering a request failed")
            finally:
                slots.release()

        try:
            while not self.stop.is_set():
                try:
                    frame = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    if exc.partial.strip():
                        await slots.acquire()
                        await answer(exc.partial)
                    break
                except asyncio.LimitOverrunError:
                    writer.write(
                        error_frame(
                            None,
                            p.INVALID_REQUEST,
                            f"frame larger than {p.MAX_FRAME_BYTES} bytes; closing the connection",
                        )
                    )
                    await writer.drain()
                    break
                if not frame.strip():
                    continue
                await slots.acquire()
                task = asyncio.create_task(answer(frame))
                pending.add(task)
                self._tasks.add(task)
                task.add_done_callback(pending.discard)
                task.add_done_callback(self._tasks.discard)
        except ConnectionError:
            pass
        finally:
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def flush_touches_forever(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stop.wait(), TOUCH_FLUSH_SECONDS)
            with contextlib.suppress(EnyalError):
                await loop.run_in_executor(None, self.memory.flush_touches)

    async def run(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stop.set)
        with ThreadPoolExecutor(max_workers=8, thread_name_prefix="enyal-req") as pool:
            dispatcher = Dispatcher(self.handlers(loop), pool)
            server = await asyncio.start_unix_server(
                lambda r, w: self.serve_connection(dispatcher, r, w),
                sock=sock,
                limit=p.MAX_FRAME_BYTES,
            )
            flusher = asyncio.create_task(self.flush_touches_forever())
            log.info("enyal %s ready on %s (pid %d)", __version__, self.paths.socket, os.getpid())
            await self.stop.wait()
            log.info(
                "stopping: no new connections; finishing %d in-flight requests", len(self._tasks)
            )
            server.close()
            if self._tasks:
                await asyncio.wait(set(self._tasks), timeout=30)
            await flusher
        self.memory.close()
        log.info("stopped cleanly")


def open_memory(paths: Paths) -> Memory:
    files = locate(paths.data_dir)
    log.info("model %s from %s (%s)", files.model_id, files.model, files.source)
    return Memory(paths.db, Embedder(files))


def main(paths: Paths) -> int:
    pid_lock = lock_pidfile(paths.pid_file)
    try:
        memory = open_memory(paths)
        sock = bind_socket(paths.socket)
        try:
            asyncio.run(Daemon(paths, memory).run(sock))
        finally:
            with contextlib.suppress(FileNotFoundError):
                paths.socket.unlink()
    finally:
        with contextlib.suppress(OSError):
            paths.pid_file.unlink()
        pid_lock.close()
    return 0
