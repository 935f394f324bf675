"""Input for a headless compositor: Wayland clients of zwlr_virtual_pointer_v1 and
zwp_virtual_keyboard_v1, in Python.

Headless sway has no input devices, so nothing can click a popup or type into it; the virtual
pointer and keyboard protocols (which sway offers) add them. The wire format is simple enough to
write here: each message is the object id, then (size << 16 | opcode), then 32-bit aligned
arguments; a descriptor argument travels beside the bytes (SCM_RIGHTS).
"""

import ctypes
import ctypes.util
import os
import socket
import struct
import tempfile
import time


class WaylandError(Exception):
    pass


class WaylandClient:
    """A connection to the compositor with its registry read: what binds globals and sends requests."""

    DISPLAY = 1

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

    def _send(self, object_id, opcode, arguments, fds=()):
        size = 8 + len(arguments)
        message = struct.pack("<II", object_id, size << 16 | opcode) + arguments
        if fds:
            self.socket.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"<{len(fds)}i", *fds))])
        else:
            self.socket.sendall(message)

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

    def close(self):
        self.socket.close()


class VirtualPointer(WaylandClient):
    BTN_LEFT = 0x110
    BTN_RIGHT = 0x111
    BTN_MIDDLE = 0x112

    def __init__(self, runtime_dir, display_name):
        super().__init__(runtime_dir, display_name)
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


    def scroll(self, pixels, wheel=False):
        """Scrolls by `pixels` (down when positive): a touchpad's pixels, or a wheel's value."""
        self._send(self.pointer, 5, struct.pack("<I", 0 if wheel else 1))  # axis_source
        self._send(self.pointer, 3, struct.pack("<IIi", 0, 0, int(pixels * 256)))  # axis(time, vertical, fixed)
        self._send(self.pointer, 4, b"")  # frame
        self.round_trip()


def _string(text):
    data = text.encode() + b"\0"
    return struct.pack("<I", len(data)) + data + b"\0" * (-len(data) % 4)


def _read_string(body, offset):
    length = struct.unpack_from("<I", body, offset)[0]
    return body[offset + 4:offset + 4 + length - 1].decode(errors="replace")


def us_keymap():
    """The text of an xkb keymap for the US layout, from libxkbcommon (as a compositor would make it)."""
    xkb = ctypes.CDLL(ctypes.util.find_library("xkbcommon") or "libxkbcommon.so.0")
    xkb.xkb_context_new.restype = ctypes.c_void_p
    xkb.xkb_keymap_new_from_names.restype = ctypes.c_void_p
    xkb.xkb_keymap_new_from_names.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    xkb.xkb_keymap_get_as_string.restype = ctypes.c_void_p
    xkb.xkb_keymap_get_as_string.argtypes = [ctypes.c_void_p, ctypes.c_int]
    xkb.xkb_keymap_unref.argtypes = [ctypes.c_void_p]
    xkb.xkb_context_unref.argtypes = [ctypes.c_void_p]
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]

    class Names(ctypes.Structure):
        _fields_ = [(name, ctypes.c_char_p) for name in ("rules", "model", "layout", "variant", "options")]

    context = xkb.xkb_context_new(0)
    names = Names(b"evdev", b"pc105", b"us", b"", b"")
    keymap = xkb.xkb_keymap_new_from_names(context, ctypes.byref(names), 0)
    assert keymap, "libxkbcommon made no keymap"
    text = xkb.xkb_keymap_get_as_string(keymap, 1)  # XKB_KEYMAP_FORMAT_TEXT_V1
    data = ctypes.string_at(text)
    libc.free(text)
    xkb.xkb_keymap_unref(keymap)
    xkb.xkb_context_unref(context)
    return data


class VirtualKeyboard(WaylandClient):
    """A keyboard with the US layout: types lowercase letters, digits, space and a few keys by name."""

    # Linux input event codes (linux/input-event-codes.h).
    KEYS = {"Escape": 1, "BackSpace": 14, "Return": 28, "space": 57, "slash": 53, "Up": 103, "Down": 108,
            "Delete": 111, "Home": 102, "End": 107}
    ROWS = {16: "qwertyuiop", 30: "asdfghjkl", 44: "zxcvbnm"}

    def __init__(self, runtime_dir, display_name):
        super().__init__(runtime_dir, display_name)
        seat = self._bind("wl_seat", 1)
        manager = self._bind("zwp_virtual_keyboard_manager_v1", 1)
        self.keyboard = self._new_id()
        self._send(manager, 0, struct.pack("<II", seat, self.keyboard))  # create_virtual_keyboard
        keymap = us_keymap() + b"\0"
        with tempfile.TemporaryFile() as file:
            file.write(keymap)
            file.flush()
            # keymap(format xkb_v1, fd, size)
            self._send(self.keyboard, 0, struct.pack("<II", 1, len(keymap)), fds=[file.fileno()])
            self.round_trip()
        self.started = time.monotonic()

    def code(self, character):
        if character in self.KEYS:
            return self.KEYS[character]
        if character == " ":
            return self.KEYS["space"]
        if character.isdigit():
            return 11 if character == "0" else 1 + int(character)
        for first, row in self.ROWS.items():
            if character in row:
                return first + row.index(character)
        raise ValueError(f"no key types {character!r}")

    def press(self, name_or_character):
        code = self.code(name_or_character)
        for state in (1, 0):
            now = int((time.monotonic() - self.started) * 1000)
            self._send(self.keyboard, 1, struct.pack("<III", now, code, state))  # key
        self.round_trip()

    def type(self, text):
        for character in text:
            self.press(character)
