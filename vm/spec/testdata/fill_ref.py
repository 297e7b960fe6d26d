# Regenerate testdata/fill_ref.json: python3 fill_ref.py > fill_ref.json
# An independent reference for FILL.md, written from its text: plain Python
# integers and floats, struct for rounding to f32/f16 (round to nearest even).
import hashlib, json, struct
M = 2**64
def sm(seed, i):
    s = (seed + (i + 1) * 0x9E3779B97F4A7C15) % M
    z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) % M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M
    return z ^ (z >> 31)
RANGES = {"u8": (0, 255), "s8": (-128, 127), "u16": (0, 65535), "s16": (-32768, 32767),
          "u32": (0, 2**32-1), "s32": (-2**31, 2**31-1), "u64": (0, 2**64-1), "s64": (-2**63, 2**63-1)}
SIZE = {"u8":1,"s8":1,"u16":2,"s16":2,"u32":4,"s32":4,"u64":8,"s64":8,"f16":2,"f32":4,"f64":8}
def elem(fill, t, i):
    k = fill["kind"]
    if t in ("f16", "f32", "f64"):
        if k == "rand":
            u = (sm(fill["seed"], i) >> 11) * 2.0**-53
            lo, hi = float(fill["lo"]), float(fill["hi"])
            v = lo + (hi - lo) * u
        elif k == "iota":
            v = float(fill.get("start", 0)) + float(i) * float(fill.get("step", 1))
        else:
            v = float(fill["value"])
        try:
            return struct.pack({"f16": "<e", "f32": "<f", "f64": "<d"}[t], v)
        except OverflowError:  # struct refuses to round to inf; IEEE rounding gives inf
            return struct.pack({"f16": "<e", "f32": "<f"}[t], float("inf") if v > 0 else float("-inf"))
    if k == "rand":
        lo, hi = fill.get("lo", RANGES[t][0]), fill.get("hi", RANGES[t][1])
        w = (hi - lo + 1) % M
        z = sm(fill["seed"], i)
        v = (lo + (z % w if w else z)) % M
    elif k == "iota":
        v = (fill.get("start", 0) + i * fill.get("step", 1)) % M
    else:
        v = fill["value"] % M
    return struct.pack("<Q", v)[:SIZE[t]]
cases = [
    ({"kind": "rand", "seed": 7, "lo": -1, "hi": 1}, "f32"),
    ({"kind": "rand", "seed": 18446744073709551615, "lo": 0, "hi": 1}, "f64"),
    ({"kind": "rand", "seed": 3, "lo": -70000, "hi": 70000}, "f16"),
    ({"kind": "rand", "seed": 1, "lo": 0.5, "hi": 0.50001}, "f16"),
    ({"kind": "rand", "seed": 0}, "u64"),
    ({"kind": "rand", "seed": 42}, "s64"),
    ({"kind": "rand", "seed": 42}, "s8"),
    ({"kind": "rand", "seed": 9, "lo": -3, "hi": 3}, "s32"),
    ({"kind": "rand", "seed": 9, "lo": 250, "hi": 260}, "u8"),
    ({"kind": "rand", "seed": 5, "lo": -9223372036854775808, "hi": 9223372036854775806}, "u64"),
    ({"kind": "rand", "seed": 11, "lo": 0, "hi": 4095}, "u16"),
    ({"kind": "iota", "start": 0.1, "step": 0.3}, "f32"),
    ({"kind": "iota"}, "f64"),
    ({"kind": "iota", "start": 0, "step": 3}, "u32"),
    ({"kind": "iota", "start": 9223372036854775813, "step": -3}, "s64"),
    ({"kind": "iota", "start": -5, "step": 1000}, "s16"),
    ({"kind": "const", "value": 0.1}, "f16"),
    ({"kind": "const", "value": 0.5}, "f32"),
    ({"kind": "const", "value": -5}, "s16"),
    ({"kind": "const", "value": 4294967295}, "u32"),
    ({"kind": "const", "value": -1}, "u64"),
]
n = 100003
out = []
for fill, t in cases:
    data = b"".join(elem(fill, t, i) for i in range(n))
    out.append({"fill": json.dumps(fill), "type": t, "count": n,
                "sha256": hashlib.sha256(data).hexdigest(), "first": data[:16].hex()})
pairs = [(0, 0), (0, 1), (7, 0), (7, 123456789), (2**64 - 1, 0), (2**64 - 1, 2**64 - 2), (0x9E3779B97F4A7C15, 42)]
print(json.dumps({"cases": out, "splitmix64": [[s, i, sm(s, i)] for s, i in pairs]}, indent=1))
