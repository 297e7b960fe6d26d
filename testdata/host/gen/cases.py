#!/usr/bin/env python3
"""cases.py — writes the host-memory corpus's specs (testdata/host/cases)
and cases.json, which says for each spec's steps the recording of
hostmem.jsonl (group, name, bytes) its modelled time is held to. Every
case is a program of steps that repeats what hostmem.cu did on the GPU.

Run from testdata/host: python3 gen/cases.py
"""
import json, os, shutil

MiB = 1 << 20
PTX = "../../ptx/hostmem.O3.ptx"
cases = []


def buf(name, n, memory=None, fill=True, wc=False, const=None):
    b = {"name": name, "type": "f32", "count": n}
    if memory:
        b["memory"] = memory
    if wc:
        b["write_combined"] = True
    if const is not None:
        b["fill"] = {"kind": "const", "value": const}
    elif fill:
        b["fill"] = {"kind": "iota", "start": 0, "step": 1}
    return b


def launch(kernel, n, args):
    return {"launch": {"kernel": kernel, "grid": [(n + 255) // 256], "block": [256], "args": args}}


def perm_args(src, dst, n, stride):
    return [{"buffer": src}, {"buffer": dst}, {"u32": n}, {"u32": stride}, {"f32": 2.0}]


def write(name, spec, measured):
    d = os.path.join("cases", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "spec.json"), "w") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")
    cases.append({"name": name, "spec": os.path.join("cases", name, "spec.json"), "steps": measured})


def main():
    shutil.rmtree("cases", ignore_errors=True)
    # Mapped (zero-copy) memory: hostmem.cu's mapped group.
    ncu_row = 0
    for b in (1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB):
        n = b // 4
        for var, store, mem, wc in (("read_mapped", False, "mapped", False), ("write_mapped", True, "mapped", False),
                                   ("read_mapped_wc", False, "mapped", True), ("write_mapped_wc", True, "mapped", True),
                                   ("read_device", False, None, False), ("write_device", True, None, False)):
            for stride in (1, 32):
                if wc and stride != 1:
                    continue
                kernel = "store_perm" if store else "copy_perm"
                src = buf("src", n, mem if not store else None, wc=wc and not store)
                dst = buf("dst", n, mem if store else None, fill=False, wc=wc and store)
                label = "%s_%s" % (var, "coalesced" if stride == 1 else "stride32")
                spec = {"module": PTX, "description": "hostmem.cu mapped group: %s, %d MiB" % (label, b // MiB),
                        "buffers": [src, dst], "steps": [launch(kernel, n, perm_args("src", "dst", n, stride))], "outputs": ["dst"]}
                meas = {"step": 0, "group": "mapped", "name": label, "bytes": b}
                if mem:
                    # ncu_mapped.csv's rows: hostmem mapped runs these in
                    # this order, size by size (no device cases).
                    meas["ncu_row"] = ncu_row
                    ncu_row += 1
                write("%s_%dM" % (label, b // MiB), spec, [meas])
    # Managed memory: hostmem.cu's managed group, one program per size.
    for b in (1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB):
        n = b // 4
        m = lambda name: {"group": "managed", "name": name, "bytes": b}
        steps = [
            launch("copy_perm", n, perm_args("m", "dev", n, 1)),  # first read, host resident
            launch("copy_perm", n, perm_args("m", "dev", n, 1)),  # resident
            {"copy": "m", "to": "host"},  # the host touches it
            {"prefetch": "m", "to": "device"},
            launch("copy_perm", n, perm_args("m", "dev", n, 1)),  # after prefetch
            {"prefetch": "m", "to": "host"},
            launch("scale", n, [{"buffer": "m"}, {"u32": n}, {"f32": 2.0}, {"f32": 1.0}]),  # first touch, read and write
        ]
        spec = {"module": PTX, "description": "hostmem.cu managed group, %d MiB: the steps it timed on one managed buffer" % (b // MiB),
                "buffers": [buf("m", n, "managed"), buf("dev", n, fill=False)], "steps": steps, "outputs": ["m"]}
        write("managed_%dM" % (b // MiB), spec, [
            dict(step=0, **m("first_read_host_resident")), dict(step=1, **m("read_resident")),
            dict(step=2, **m("host_touch_back_wall")), dict(step=3, **m("prefetch_to_device")),
            dict(step=4, **m("read_after_prefetch")), dict(step=5, **m("prefetch_to_host")),
            dict(step=6, **m("scale_first_touch_host_resident"))])
        for name, const in (("first_write_untouched", None), ("first_write_host_resident", 0)):
            spec = {"module": PTX, "description": "hostmem.cu managed group: %s, %d MiB" % (name, b // MiB),
                    "buffers": [buf("dev", n), buf("m", n, "managed", fill=False, const=const)],
                    "steps": [launch("store_perm", n, perm_args("dev", "m", n, 1))], "outputs": ["m"]}
            write("%s_%dM" % (name, b // MiB), spec, [dict(step=0, **m(name))])
    # Programs: hostmem.cu's program group (16 MiB). hostmem.cu runs the
    # program ten times and times the last nine, so each timed copy in
    # follows the copy out of the run before: the spec starts with that
    # copy out, and the recording is held to the steps after it.
    b, n = 16 * MiB, 4 * MiB
    for hm in ("pageable", "pinned"):
        spec = {"module": PTX, "description": "copy in, scale, copy out (%s host memory), 16 MiB, after the copy out of the run before" % hm,
                "buffers": [buf("x", n)],
                "steps": [{"copy": "x", "to": "host", "host_memory": hm},
                          {"copy": "x", "to": "device", "host_memory": hm},
                          launch("scale", n, [{"buffer": "x"}, {"u32": n}, {"f32": 2.0}, {"f32": 1.0}]),
                          {"copy": "x", "to": "host", "host_memory": hm}], "outputs": ["x"]}
        write("copy_scale_copy_" + hm, spec, [{"step": "total", "from": 1, "group": "program", "name": "copy_scale_copy_" + hm, "bytes": b}])
    spec = {"module": PTX, "description": "two kernels over the same buffers: scale x, then y = 0.5 x + y, 16 MiB",
            "buffers": [buf("x", n), buf("y", n)],
            "steps": [launch("scale", n, [{"buffer": "x"}, {"u32": n}, {"f32": 2.0}, {"f32": 1.0}]),
                      launch("axpy", n, [{"buffer": "x"}, {"buffer": "y"}, {"u32": n}, {"f32": 0.5}])], "outputs": ["y"]}
    write("scale_axpy", spec, [{"step": "total", "group": "program", "name": "scale_axpy", "bytes": b}])
    # Copies and memsets: one program per size, each copy kind both ways.
    for b in (1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB):
        n = b // 4
        steps, meas = [], []
        for hm, key in (("pageable", "pageable"), ("pinned", "pinned"), ("write_combined", "pinned_wc")):
            for to, d in (("device", "h2d"), ("host", "d2h")):
                if hm == "pageable" and to == "device":
                    # hostmem.cu repeats each copy and times the repeats:
                    # a pageable copy to the device right after the same
                    # copy finds its bytes in the host's cache.
                    steps.append({"copy": "a", "to": to, "host_memory": hm})
                meas.append({"step": len(steps), "group": "copy", "name": "%s_%s" % (d, key), "bytes": b})
                steps.append({"copy": "a", "to": to, "host_memory": hm})
        if b <= 64 * MiB:
            meas.append({"step": len(steps), "group": "memset", "name": "memset", "bytes": b})
            steps.append({"memset": "a", "value": 7})
        spec = {"module": PTX, "description": "hostmem.cu copy group, %d MiB" % (b // MiB),
                "buffers": [buf("a", n, fill=False)], "steps": steps}
        write("copies_%dM" % (b // MiB), spec, meas)
    second()
    third()
    fifth()
    seventh()
    with open("cases.json", "w") as f:
        json.dump({"recording": "hostmem.jsonl", "cases": cases}, f, indent=1)
        f.write("\n")


def kernel_steps(kernel, p, n):
    """hostmem2.cu's and hostmem3.cu's kernels over buffer p (dout and
    dsrc are device buffers)."""
    if kernel == "read_coalesced":
        return launch("copy_perm", n, perm_args(p, "dout", n, 1))
    if kernel == "read_stride32":
        return launch("copy_perm", n, perm_args(p, "dout", n, 32))
    if kernel == "write_coalesced":
        return launch("store_perm", n, perm_args("dsrc", p, n, 1))
    if kernel == "write_stride32":
        return launch("store_perm", n, perm_args("dsrc", p, n, 32))
    return launch("scale", n, [{"buffer": p}, {"u32": n}, {"f32": 1.0}, {"f32": 0.0}])


def second():
    """hostmem2.jsonl (gen/hostmem2.cu): pageable copies after the host
    buffer was copied to the device, written by a copy to the host, written
    by the CPU, or left while another buffer came back; copy-scale-copy
    programs at six sizes; kernels over managed memory resident on the
    device against device memory."""
    for mb in (4, 8, 12, 16, 24, 48):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "pageable", "name": name, "bytes": b}
        cp = lambda buf, to: {"copy": buf, "to": to, "host_memory": "pageable"}
        desc = "hostmem2.cu pageable group, %d MiB: " % mb
        write("pageable2_%dM" % mb, {"module": PTX, "description": desc + "a copy to the device repeated, one back, one to the device again",
                                      "buffers": [buf("a", n)], "steps": [cp("a", "device"), cp("a", "device"), cp("a", "host"), cp("a", "device")]},
              [dict(step=1, **m("h2d_warm")), dict(step=2, **m("d2h")), dict(step=3, **m("h2d_after_d2h_same"))])
        write("pageable2_cpu_%dM" % mb, {"module": PTX, "description": desc + "a copy to the device of data the CPU wrote",
                                          "buffers": [buf("a", n)], "steps": [cp("a", "device")]},
              [dict(step=0, **m("h2d_after_cpu_write"))])
        write("pageable2_other_%dM" % mb, {"module": PTX, "description": desc + "a copy to the device after another buffer came back",
                                            "buffers": [buf("a", n), buf("b", n)], "steps": [cp("a", "device"), cp("b", "host"), cp("a", "device")]},
              [dict(step=2, **m("h2d_after_d2h_other"))])
        write("copy_scale_copy2_%dM" % mb, {"module": PTX, "description": desc + "copy in, scale, copy out, after the copy out of the run before",
                                             "buffers": [buf("x", n)],
                                             "steps": [cp("x", "host"), cp("x", "device"),
                                                       launch("scale", n, [{"buffer": "x"}, {"u32": n}, {"f32": 2.0}, {"f32": 1.0}]), cp("x", "host")]},
              [{"step": "total", "from": 1, "group": "program2", "name": "copy_scale_copy_pageable", "bytes": b}])
    for mb in (4, 32, 128):
        b, n = mb * MiB, mb * MiB // 4
        for kernel in ("read_coalesced", "write_coalesced", "scale", "read_stride32"):
            bufs = [buf("m", n, "managed"), buf("dout", n, fill=False), buf("dsrc", n)]
            write("resident2_managed_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": "hostmem2.cu resident group, %d MiB: %s over managed memory faulted in by a read, after one launch of it" % (mb, kernel),
                "buffers": bufs, "steps": [launch("copy_perm", n, perm_args("m", "dout", n, 1)), kernel_steps(kernel, "m", n), kernel_steps(kernel, "m", n)]},
                [dict(step=2, group="resident", name="managed_faulted." + kernel, bytes=b)])
            bufs = [buf("d", n), buf("dout", n, fill=False), buf("dsrc", n)]
            write("resident2_device_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": "hostmem2.cu resident group, %d MiB: %s over device memory, after one launch of it" % (mb, kernel),
                "buffers": bufs, "steps": [kernel_steps(kernel, "d", n), kernel_steps(kernel, "d", n)]},
                [dict(step=1, group="resident", name="device." + kernel, bytes=b)])


def third():
    """hostmem3.jsonl (gen/hostmem3.cu), held out: three launches of a
    kernel over managed memory prefetched to the device or faulted in by a
    read, and over device memory filled by a copy (2, 8 and 32 MiB; the
    recording's 128 MiB is left out for the time it takes in timing mode);
    pageable copies at 2, 6, 20 and 40 MiB."""
    for mb in (2, 8, 32):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "managed3", "name": name, "bytes": b}
        for kernel in ("read_coalesced", "write_coalesced", "scale", "read_stride32"):
            k = lambda p: kernel_steps(kernel, p, n)
            dev = [buf("dout", n, fill=False), buf("dsrc", n)]
            desc = "hostmem3.cu, %d MiB: %s " % (mb, kernel)
            write("managed3_prefetched_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": desc + "three times over managed memory prefetched to the device",
                "buffers": [buf("m", n, "managed")] + dev, "steps": [{"prefetch": "m", "to": "device"}, k("m"), k("m"), k("m")]},
                [dict(step=j + 1, **m("prefetched.%s.launch%d" % (kernel, j + 1))) for j in range(3)])
            write("managed3_faulted_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": desc + "three times over managed memory a read faulted in",
                "buffers": [buf("m", n, "managed")] + dev,
                "steps": [launch("copy_perm", n, perm_args("m", "dout", n, 1)), k("m"), k("m"), k("m")]},
                [dict(step=0, **m("faulted.first_read_" + kernel))] + [dict(step=j + 1, **m("faulted.%s.launch%d" % (kernel, j + 1))) for j in range(3)])
            write("managed3_device_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": desc + "three times over device memory a pageable copy filled",
                "buffers": [buf("m", n)] + dev, "steps": [{"copy": "m", "to": "device", "host_memory": "pageable"}, k("m"), k("m"), k("m")]},
                [dict(step=j + 1, **m("device_after_copy.%s.launch%d" % (kernel, j + 1))) for j in range(3)])
    for mb in (2, 6, 20, 40):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "managed3", "name": "pageable." + name, "bytes": b}
        cp = lambda to: {"copy": "a", "to": to, "host_memory": "pageable"}
        write("pageable3_%dM" % mb, {
            "module": PTX, "description": "hostmem3.cu pageable copies, %d MiB: to the device after the CPU wrote the buffer, again, back, to the device again, then copy in, scale, copy out" % mb,
            "buffers": [buf("a", n)],
            "steps": [cp("device"), cp("device"), cp("host"), cp("device"),
                      cp("device"), launch("scale", n, [{"buffer": "a"}, {"u32": n}, {"f32": 2.0}, {"f32": 1.0}]), cp("host")]},
            [dict(step=0, **m("h2d_after_cpu_write")), dict(step=1, **m("h2d_repeat")), dict(step=2, **m("d2h")),
             dict(step=3, **m("h2d_after_d2h_same")), {"step": "total", "from": 4, "group": "managed3", "name": "pageable.copy_scale_copy_after_d2h", "bytes": b}])



def fifth():
    """hostmem5.jsonl (gen/hostmem5.cu), held out when recorded: first
    touches of host-written managed memory by a read, a write and a
    read-write kernel, and first writes of untouched managed memory, at 3,
    6, 12, 24 and 48 MiB (each on a managed buffer of its own); prefetches
    of host-written managed memory to the device and scattered and
    coalesced reads of mapped memory at 2, 3, 6, 8 and 12 MiB; three
    launches after a pinned copy into a buffer fresh from cudaMalloc, then
    three after a second pinned copy into the same buffer (kernels have
    read it), at 24 and 48 MiB."""
    for mb in (3, 6, 12, 24, 48):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "managed5", "name": name, "bytes": b}
        desc = "hostmem5.cu touch group, %d MiB: " % mb
        dev = [buf("dout", n, fill=False), buf("dsrc", n, const=0)]
        for name, kernel in (("first_read_host_resident", "read_coalesced"), ("first_write_host_resident", "write_coalesced"),
                             ("scale_first_touch_host_resident", "scale")):
            write("managed5_%s_%dM" % (name, mb), {
                "module": PTX, "description": desc + "%s over managed memory the host wrote" % kernel,
                "buffers": [buf("m", n, "managed")] + dev, "steps": [kernel_steps(kernel, "m", n)]},
                [dict(step=0, **m(name))])
        write("managed5_first_write_untouched_%dM" % mb, {
            "module": PTX, "description": desc + "write_coalesced over managed memory nothing has touched",
            "buffers": [buf("m", n, "managed", fill=False)] + dev, "steps": [kernel_steps("write_coalesced", "m", n)]},
            [dict(step=0, **m("first_write_untouched"))])
    for mb in (2, 3, 6, 8, 12):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "managed5", "name": name, "bytes": b}
        write("managed5_prefetch_%dM" % mb, {
            "module": PTX, "description": "hostmem5.cu prefetch group, %d MiB: managed memory the host wrote, prefetched to the device" % mb,
            "buffers": [buf("m", n, "managed")], "steps": [{"prefetch": "m", "to": "device"}]},
            [dict(step=0, **m("prefetch_to_device"))])
        for stride, label in ((32, "stride32"), (1, "coalesced")):
            write("managed5_mapped_%s_%dM" % (label, mb), {
                "module": PTX, "description": "hostmem5.cu mapped group, %d MiB: copy_perm reading mapped memory, stride %d" % (mb, stride),
                "buffers": [buf("src", n, "mapped"), buf("dout", n, fill=False)],
                "steps": [launch("copy_perm", n, perm_args("src", "dout", n, stride))]},
                [dict(step=0, **m("mapped.read_mapped_" + label))])
    for mb in (24, 48):
        b, n = mb * MiB, mb * MiB // 4
        m = lambda name: {"group": "managed5", "name": name, "bytes": b}
        for kernel in ("read_coalesced", "scale"):
            k = kernel_steps(kernel, "d", n)
            cp = {"copy": "d", "to": "device", "host_memory": "pinned"}
            write("managed5_fresh_%s_%dM" % (kernel, mb), {
                "module": PTX, "description": "hostmem5.cu fresh group, %d MiB: %s three times after a pinned copy into a new buffer, then three times after a second copy into it" % (mb, kernel),
                "buffers": [buf("d", n), buf("dout", n, fill=False)], "steps": [cp, k, k, k, cp, k, k, k]},
                [dict(step=j + 1, **m("fresh_copy.%s.launch%d" % (kernel, j + 1))) for j in range(3)] +
                [dict(step=j + 5, **m("reused_copy.%s.launch%d" % (kernel, j + 1))) for j in range(3)])


def readall(p, n):
    """hostmem7.cu's readall over buffer p of n floats (sink: one float)."""
    n4 = n // 4
    return {"launch": {"kernel": "readall", "grid": [min(132 * 8, (n4 + 255) // 256)], "block": [256],
                       "args": [{"buffer": p}, {"u32": n4}, {"buffer": "sink"}]}}


def seventh():
    """hostmem7.jsonl (gen/hostmem7.cu): a buffer read whole twice by
    readall after a pinned copy from the host, a memset, a kernel's writes,
    a kernel's read, or nothing (the program starts with a clean L2, as the
    GPU's runs started each state after a 256 MiB read of another buffer),
    at 4-96 MiB; store_perm at strides 1, 2, 8 and 32, 4-128 MiB, each
    alone; managed memory the host wrote, prefetched to the device or
    faulted in by readall, then read twice, at 4-64 MiB; copy_perm three
    times after a pageable copy, a pinned copy or a prefetch, at 8, 32 and
    64 MiB. (The
    device-to-device copy of the recording has no step.)"""
    for mb in (4, 8, 16, 24, 32, 40, 48, 64, 96):
        b, n = mb * MiB, mb * MiB // 4
        r = readall("d", n)
        before = {
            "copy_pinned": [{"copy": "d", "to": "device", "host_memory": "pinned"}],
            "memset": [{"memset": "d", "value": 0}],
            "kernel_write": [launch("store_perm", n, [{"buffer": "src"}, {"buffer": "d"}, {"u32": n}, {"u32": 1}, {"f32": 1.0}])],
            "kernel_read": [r],
            "cold": [],
        }
        for state, steps in before.items():
            bufs = [buf("d", n), buf("sink", 1, fill=False)]
            if state == "kernel_write":
                bufs.append(buf("src", n))
            write("l2after_%s_%dM" % (state, mb), {
                "module": PTX, "description": "hostmem7.cu l2after group, %d MiB: readall twice after %s" % (mb, state.replace("_", " ")),
                "buffers": bufs, "steps": steps + [r, r]},
                [dict(step=len(steps) + j, group="l2after", name="%s.readall.launch%d" % (state, j + 1), bytes=b) for j in range(2)])
    for mb in (4, 16, 32, 64):
        b, n = mb * MiB, mb * MiB // 4
        r = readall("m", n)
        # The GPU ran seven repeats and a warm-up over one buffer, the
        # host writing it before each: so the timed prefetches brought back
        # pages that had been on the device (the warm-up's prefetch and
        # read and the host's touch before them say so; the first launch
        # after a prefetch of pages never on the device pays more,
        # gpu.Host.AfterPrefetchGrowth).
        been = [{"prefetch": "m", "to": "device"}, r, {"copy": "m", "to": "host"}]
        for state, steps in (("prefetched", been + [{"prefetch": "m", "to": "device"}]), ("faulted", [r])):
            write("l2managed_%s_%dM" % (state, mb), {
                "module": PTX, "description": "hostmem7.cu l2managed group, %d MiB: readall twice over managed memory the host wrote, after it was %s" % (mb, state),
                "buffers": [buf("m", n, "managed"), buf("sink", 1, fill=False)], "steps": steps + [r, r]},
                [dict(step=len(steps) + j, group="l2managed", name="%s.readall.launch%d" % (state, j + 1), bytes=b) for j in range(2)])
    for mb in (8, 32, 64):
        b, n = mb * MiB, mb * MiB // 4
        k = launch("copy_perm", n, perm_args("d", "dout", n, 1))
        for state, step, mem in (("pageable_copy", {"copy": "d", "to": "device", "host_memory": "pageable"}, None),
                                 ("pinned_copy", {"copy": "d", "to": "device", "host_memory": "pinned"}, None),
                                 ("prefetch", {"prefetch": "d", "to": "device"}, "managed")):
            write("firstlaunch_%s_%dM" % (state, mb), {
                "module": PTX, "description": "hostmem7.cu firstlaunch group, %d MiB: copy_perm three times after a %s" % (mb, state.replace("_", " ")),
                "buffers": [buf("d", n, mem), buf("dout", n, fill=False)], "steps": [step, k, k, k]},
                [dict(step=1 + j, group="firstlaunch", name="%s.copy_perm.launch%d" % (state, j + 1), bytes=b) for j in range(3)])
    for mb in (4, 16, 32, 64, 128):
        b, n = mb * MiB, mb * MiB // 4
        for stride in (1, 2, 8, 32):
            write("partial_stride%d_%dM" % (stride, mb), {
                "module": PTX, "description": "hostmem7.cu partial group, %d MiB: store_perm, the write with consecutive threads %d words apart" % (mb, stride),
                "buffers": [buf("in", n, const=0), buf("out", n, fill=False)],
                "steps": [launch("store_perm", n, [{"buffer": "in"}, {"buffer": "out"}, {"u32": n}, {"u32": stride}, {"f32": 2.0}])]},
                [dict(step=0, group="partial", name="store_perm_stride%d" % stride, bytes=b)])


main()
