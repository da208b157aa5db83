"""uvicorn's HTTP/1.1 protocol with a deadline for each request's headers.

uvicorn closes a kept-alive connection that stays idle after a response, but not one that never
sends a request, or sends its headers a byte at a time: 3,000 such sockets were once held open.
Here a connection must complete a request's headers within ``header_timeout_s`` of being opened
(or of its previous response), or it is closed.
"""

from __future__ import annotations

import os

from uvicorn.protocols.http.h11_impl import H11Protocol


class HeaderDeadlineProtocol(H11Protocol):
    @property
    def header_timeout_s(self) -> float:
        # From the environment, so that every uvicorn worker process (``--workers``) sees it.
        return float(os.environ.get("CUDA2CPU_HEADER_TIMEOUT_S", "10"))

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timed_cycle = None
        self._header_deadline = None
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and self.cycle is not self._timed_cycle:  # this request's headers are in
            self._timed_cycle = self.cycle
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's headers get the same deadline

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()
