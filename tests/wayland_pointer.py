"""A pointer for a headless compositor: a Wayland client of zwlr_virtual_pointer_v1, in Python.

Headless sway has no input devices, so nothing can click a popup; the virtual-pointer protocol
(which sway offers) adds one. The wire format is simple enough to write here: each message is
the object id, then (size << 16 | opcode), then 32-bit aligned arguments.
"""

import os
import socket
import struct


class WaylandError(Exception):
    pass


class VirtualPointer:
    DISPLAY = 1
    BTN_LEFT = 0x110
    BTN_RIGHT = 0x111

    def __init__(self, runtime_dir, display_name):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(5)
        self.socket.connect(os.path.join(runtime_dir, display_name))
        self.buffer = b""
        self.next_id = 2
        self.globals = {}
        self.registry = self._new_id()
        self._send(self.DISPLAY, 1, struct.pack("<I", self.registry))  # wl_display.get_registry
        self.round_trip()
        seat = self._bind("wl_seat", 1)
        manager = self._bind("zwlr_virtual_pointer_manager_v1", 1)
        self.pointer = self._new_id()
        # create_virtual_pointer(seat, id)
        self._send(manager, 0, struct.pack("<II", seat, self.pointer))
        self.round_trip()

    def move_to(self, x, y, width, height):
        """Puts the pointer at (x, y) of an output layout `width` × `height`."""
        self._send(self.pointer, 1, struct.pack("<IIIII", 0, x, y, width, height))  # motion_absolute
        self._send(self.pointer, 4, b"")  # frame
        self.round_trip()

    def click(self, button=BTN_LEFT):
        for state in (1, 0):
            self._send(self.pointer, 2, struct.pack("<III", 0, button, state))  # button
            self._send(self.pointer, 4, b"")
        self.round_trip()

    def close(self):
        self.socket.close()

    # The wire

    def _new_id(self):
        object_id = self.next_id
        self.next_id += 1
        return object_id

    def _bind(self, interface, version):
        if interface not in self.globals:
            raise WaylandError(f"the compositor offers no {interface}")
        name, offered = self.globals[interface]
        object_id = self._new_id()
        arguments = struct.pack("<I", name) + _string(interface) + struct.pack("<II", min(version, offered), object_id)
        self._send(self.registry, 0, arguments)  # wl_registry.bind
        return object_id

    def _send(self, object_id, opcode, arguments):
        size = 8 + len(arguments)
        self.socket.sendall(struct.pack("<II", object_id, size << 16 | opcode) + arguments)

    def round_trip(self):
        """Waits until the compositor has handled everything sent so far (wl_display.sync)."""
        callback = self._new_id()
        self._send(self.DISPLAY, 0, struct.pack("<I", callback))
        while True:
            object_id, opcode, body = self._receive()
            if object_id == callback and opcode == 0:
                return
            if object_id == self.DISPLAY and opcode == 0:  # wl_display.error
                _, code = struct.unpack_from("<II", body)
                raise WaylandError(f"protocol error {code}: {_read_string(body, 8)}")
            if object_id == self.registry and opcode == 0:  # wl_registry.global
                name = struct.unpack_from("<I", body)[0]
                interface = _read_string(body, 4)
                version = struct.unpack_from("<I", body, len(body) - 4)[0]
                self.globals.setdefault(interface, (name, version))

    def _receive(self):
        while len(self.buffer) < 8 or len(self.buffer) < struct.unpack_from("<I", self.buffer, 4)[0] >> 16:
            chunk = self.socket.recv(65536)
            if not chunk:
                raise WaylandError("the compositor closed the connection")
            self.buffer += chunk
        object_id, word = struct.unpack_from("<II", self.buffer)
        size = word >> 16
        body = self.buffer[8:size]
        self.buffer = self.buffer[size:]
        return object_id, word & 0xFFFF, body


def _string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def _read_string(body, offset):
    length = struct.unpack_from("<I", body, offset)[0]
    return body[offset + 4:offset + 4 + length - 1].decode(errors="replace")
