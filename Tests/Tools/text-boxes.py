#!/usr/bin/env python3
"""Renders an SVG with rsvg-convert and measures where each of its texts
landed, to check a chart's layout with a real renderer, not its own numbers.

Every <text> gets a colour of its own, with anti-aliasing off
(text-rendering="optimizeSpeed"), and everything else but the background
is dropped; one render then gives each text's ink box, from the pixels of
its colour. Prints one JSON object: the canvas, how many texts there are,
and the problems found: a text with no pixels, one whose ink touches the
canvas's edge (cut off), two whose boxes touch or overlap.

Usage: text-boxes.py CHART.svg [OUT.png]   (stdlib only; needs rsvg-convert)
"""
import json, re, struct, subprocess, sys, tempfile, zlib


def decode_png(data):
    """Width, height, bytes per pixel and the unfiltered pixels of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat, width, height, bpp = 8, b"", 0, 0, 4
    while i < len(data):
        n = struct.unpack(">I", data[i:i + 4])[0]
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6) and body[12] == 0, "an 8-bit, non-interlaced RGB(A) PNG"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        i += 12 + n
    raw, stride = zlib.decompress(idat), width * bpp
    rows, previous, p = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif kind == 2:
            for x in range(stride):
                line[x] = (line[x] + previous[x]) & 255
        elif kind == 3:
            for x in range(stride):
                line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + previous[x]) // 2) & 255
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = previous[x], (previous[x - bpp] if x >= bpp else 0)
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, bpp, rows


def main():
    source = open(sys.argv[1], encoding="utf-8").read()
    texts = []

    def colour(match):
        texts.append(re.sub(r"<[^>]*>", "", match.group(2)))
        number = len(texts)
        attributes = re.sub(r'\sfill="[^"]*"', "", match.group(1))
        return '<text%s fill="#%06x">%s</text>' % (attributes, number, match.group(2))

    svg = re.sub(r"<text([^>]*)>(.*?)</text>", colour, source, flags=re.S)
    svg = re.sub(r"<rect class=\"bar\".*?</rect>", "", svg, flags=re.S)
    svg = re.sub(r"<line[^>]*/>", "", svg)
    svg = svg.replace("<svg ", '<svg text-rendering="optimizeSpeed" ', 1)
    with tempfile.NamedTemporaryFile("w", suffix=".svg", encoding="utf-8") as marked:
        marked.write(svg)
        marked.flush()
        png = subprocess.run(["rsvg-convert", marked.name], check=True, capture_output=True).stdout
    if len(sys.argv) > 2:
        open(sys.argv[2], "wb").write(subprocess.run(["rsvg-convert", sys.argv[1]], check=True, capture_output=True).stdout)
    width, height, bpp, rows = decode_png(png)
    boxes = {}
    for y, line in enumerate(rows):
        for x in range(width):
            r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
            number = r << 16 | g << 8 | b
            if 0 < number <= len(texts):
                box = boxes.get(number)
                if box is None:
                    boxes[number] = [x, y, x, y]
                else:
                    box[0], box[1], box[2], box[3] = min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)
    problems = []
    for number, text in enumerate(texts, 1):
        box = boxes.get(number)
        if box is None:
            problems.append("%r: not drawn" % text)
        elif box[0] <= 0 or box[1] <= 0 or box[2] >= width - 1 or box[3] >= height - 1:
            problems.append("%r: at the canvas's edge %s, %dx%d" % (text, box, width, height))
    numbers = sorted(boxes)
    for i, a in enumerate(numbers):
        for b in numbers[i + 1:]:
            p, q = boxes[a], boxes[b]
            if p[0] <= q[2] + 1 and q[0] <= p[2] + 1 and p[1] <= q[3] + 1 and q[1] <= p[3] + 1:
                problems.append("%r %s touches %r %s" % (texts[a - 1], p, texts[b - 1], q))
    print(json.dumps({"width": width, "height": height, "texts": len(texts), "drawn": len(boxes), "problems": problems}))


main()
