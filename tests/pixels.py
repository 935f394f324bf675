"""Screenshots read for their pixels, as the display suites judge what a person would see: an
`Image` from a PPM (grim's, ImageMagick's `import`), boxes and runs of colour in it, and the colours
of cards, blends and buttons."""


class Image:
    """A screenshot: a binary PPM (grim's, ImageMagick's `import`), read into rows of RGB;
    coordinates are the screen's. `background` is the colour nothing is drawn over."""

    def __init__(self, data, origin=(0, 0), background=(0, 0, 0)):
        self.origin = origin
        self.background = tuple(background)
        # "P6", width, height, maxval, each ended by one whitespace byte, then the pixels (whose
        # first byte may itself be whitespace: the background's red is 0x20).
        fields, offset = [], 0
        while len(fields) < 4:
            end = offset
            while data[end:end + 1] not in (b" ", b"\n", b"\t", b"\r"):
                end += 1
            if end > offset:
                fields.append(data[offset:end])
            offset = end + 1
        assert fields[0] == b"P6" and fields[3] == b"255", fields
        self.width, self.height = int(fields[1]), int(fields[2])
        self.pixels = data[offset:]
        assert len(self.pixels) == self.width * self.height * 3

    def pixel(self, x, y):
        x, y = x - self.origin[0], y - self.origin[1]
        offset = (y * self.width + x) * 3
        return tuple(self.pixels[offset:offset + 3])

    def box(self):
        """The smallest rectangle (x0, y0, x1, y1), ends exclusive, holding every pixel that is not
        exactly the background colour."""
        box = self._box_of_non_background()
        if box is None:
            return None
        ox, oy = self.origin
        return (box[0] + ox, box[1] + oy, box[2] + ox, box[3] + oy)

    def _box_of_non_background(self):
        stride = self.width * 3
        plain = bytes(self.background) * self.width
        rows = [y for y in range(self.height) if self.pixels[y * stride:(y + 1) * stride] != plain]
        if not rows:
            return None
        left, right = self.width, 0
        for y in rows:
            row = self.pixels[y * stride:(y + 1) * stride]
            first = next(x for x in range(self.width) if row[x * 3:x * 3 + 3] != plain[:3])
            last = next(x for x in reversed(range(self.width)) if row[x * 3:x * 3 + 3] != plain[:3])
            left, right = min(left, first), max(right, last + 1)
        return (left, rows[0], right, rows[-1] + 1)

    def box_near(self, *colours, tolerance=3):
        """The smallest rectangle holding every pixel within `tolerance` of one of `colours` in each
        channel (as `close_to`), or None."""
        masks = [self.mask(*[lambda value, wanted=wanted: abs(value - wanted) <= tolerance for wanted in colour])
                 for colour in colours]
        return self.box_of(masks[0] if len(masks) == 1 else self.either(*masks))

    def mask(self, red, green, blue):
        """A byte per pixel, 1 where each channel's value passes its test (a function of 0…255), else
        0. Worked out a channel at a time by C code (a table, `bytes.translate`, then an AND of
        the three planes as integers), not a pixel at a time in Python: a 1280×720 screenshot takes
        milliseconds, where a Python test per pixel took a second of CPU every time a test polled it."""
        planes = []
        for channel, test in enumerate((red, green, blue)):
            table = bytes(1 if test(value) else 0 for value in range(256))
            planes.append(int.from_bytes(self.pixels[channel::3].translate(table), "big"))
        return (planes[0] & planes[1] & planes[2]).to_bytes(self.width * self.height, "big")

    def either(self, *masks):
        """The pixels set in any of `masks`."""
        union = 0
        for mask in masks:
            union |= int.from_bytes(mask, "big")
        return union.to_bytes(self.width * self.height, "big")

    def box_of(self, mask):
        """The smallest rectangle holding every pixel set in `mask` (from `mask`), or None."""
        first, last = mask.find(1), mask.rfind(1)
        if first < 0:
            return None
        width = self.width
        left, right = width, 0
        for y in range(first // width, last // width + 1):
            row = mask[y * width:(y + 1) * width]
            start = row.find(1)
            if start >= 0:
                left, right = min(left, start), max(right, row.rfind(1) + 1)
        ox, oy = self.origin
        return (left + ox, first // width + oy, right + ox, last // width + 1 + oy)

    def runs_down(self, x, differs=None):
        """The stretches (y0, y1) of column `x` unlike the background, top to bottom."""
        differs = differs or (lambda rgb: rgb != self.background)
        runs, start = [], None
        top = self.origin[1]
        for y in range(top, top + self.height):
            inside = differs(self.pixel(x, y))
            if inside and start is None:
                start = y
            elif not inside and start is not None:
                runs.append((start, y))
                start = None
        if start is not None:
            runs.append((start, top + self.height))
        return runs


def close_to(rgb, expected, tolerance=3):
    return max(abs(a - b) for a, b in zip(rgb, expected)) <= tolerance


def fully_drawn(image, colour):
    """`image` if it holds a card drawn at full opacity in `colour` (read inside its border, at
    its left edge), else None: for waiting until a fade-in is over."""
    box = image.box()
    return image if box and close_to(image.pixel(box[0] + 6, box[1] + 20), colour) else None


def blend(top, bottom, alpha):
    return tuple(round(alpha * a + (1 - alpha) * b) for a, b in zip(top, bottom))


def hex_colour(rgb):
    return "#%02x%02x%02x" % rgb


def button_centres(box, count):
    """Points well inside each of a card's `count` buttons, left to right, for a card whose box
    (x0, y0, x1, y1) is on the screen: CardPainter draws them with equal widths across the card
    inside its 12-pixel padding, 6 apart, in a row at its foot at least 16 pixels high."""
    x0, _, x1, y1 = box
    width = (x1 - x0 - 24 - 6 * (count - 1)) / count
    return [(int(x0 + 12 + index * (width + 6) + width / 2), y1 - 12 - 8) for index in range(count)]


def button_fill_at(image, box, count, index):
    """The colour of button `index`'s fill, at its left end beside its label."""
    x0, _, x1, _ = box
    width = (x1 - x0 - 24 - 6 * (count - 1)) / count
    _, y = button_centres(box, count)[index]
    return image.pixel(int(x0 + 12 + index * (width + 6) + 4), y)
