"""Writes bad SPIR-V modules into DIR, from a GLSL shader compiled with
glslangValidator: empty, 3 bytes, wrong magic, truncated in the middle, an
instruction whose word count runs past the end, a bound of 0, and the
module with every tenth word replaced by a (deterministic) random word.

  make_bad_modules.py SHADER DIR
"""
import os
import random
import struct
import subprocess
import sys

shader, out = sys.argv[1], sys.argv[2]
good = os.path.join(out, "good.bin")
subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.1", shader, "-o", good],
               check=True, stdout=subprocess.DEVNULL)
data = open(good, "rb").read()
os.remove(good)
words = list(struct.unpack("<%dI" % (len(data) // 4), data))


def write(name, blob):
    with open(os.path.join(out, name), "wb") as f:
        f.write(blob)


def pack(ws):
    return struct.pack("<%dI" % len(ws), *ws)


write("empty.spv", b"")
write("short.spv", b"\x03\x02\x23")
write("magic.spv", pack([0x12345678] + words[1:]))
write("truncated.spv", data[: len(data) // 2 + 2])
write("wordcount.spv", pack(words[:5] + [(0xffff << 16) | 17] + words[6:]))
write("bound.spv", pack(words[:3] + [0] + words[4:]))
rng = random.Random(7)
write("words.spv", pack([w if i < 5 or i % 10 else rng.getrandbits(32) for i, w in enumerate(words)]))
