"""A T-Rex stateless profile: UDP/IPv4 benchmark traffic, one flow or many.

Load it with trex-loadtest (`-p examples/trex_bench.py -t size=64,vm=var2`) or
with T-Rex's own console (`start -f trex_bench.py -t size=imix,vm=var2`).

Tunables:
  size    frame size in bytes including the FCS (64 .. 9216), or `imix`
          (64/594/1518 bytes, 7:4:1); default 64
  vm      `none`: one flow; `var1`: the source address walks its range;
          `var2`: source and destination addresses walk theirs (253 x 253
          flows); default none
  offset  third octet of both networks (16.0.OFFSET.1-253 to
          48.0.OFFSET.1-253), so several tests can share a router; default 0

Direction 1 (the second port of a pair) mirrors addresses: 48.0.x.y to 16.0.x.y.
"""

import argparse

from trex.stl.api import (
    IP,
    UDP,
    Ether,
    STLPktBuilder,
    STLScVmRaw,
    STLStream,
    STLTXCont,
    STLVmFixIpv4,
    STLVmFlowVar,
    STLVmWrFlowVar,
)

FCS = 4
IMIX = ((64, 7), (594, 4), (1518, 1))  # frame size incl. FCS, packets per second
HOSTS = (1, 253)  # first and last host number of each range


def frame_sizes(size: str) -> tuple:
    """(frame size, relative rate) pairs for the `size` tunable."""
    if size == "imix":
        return IMIX
    try:
        frame = int(size)
    except ValueError:
        raise ValueError(f"size {size!r}: give a frame size in bytes or imix") from None
    if not 64 <= frame <= 9216:
        raise ValueError(f"size {frame}: frames are 64 to 9216 bytes (incl. FCS)")
    return ((frame, 1),)


class BenchProfile:
    """register() returns this; T-Rex calls get_streams once per port."""

    def parser(self) -> argparse.ArgumentParser:
        parser = argparse.ArgumentParser(prog="trex_bench.py", description=__doc__.split("\n")[0])
        parser.add_argument("--size", default="64", help="frame size incl. FCS, or imix")
        parser.add_argument("--vm", default="none", choices=("none", "var1", "var2"),
                            help="none: one flow; var1: sources walk; var2: both walk")
        parser.add_argument("--offset", type=int, default=0,
                            help="third octet of both networks (0..255)")
        return parser

    def networks(self, direction: int, offset: int) -> tuple:
        if not 0 <= offset <= 255:
            raise ValueError(f"offset {offset}: the third octet is 0..255")
        src, dst = f"16.0.{offset}.", f"48.0.{offset}."
        return (dst, src) if direction % 2 else (src, dst)

    def field_engine(self, vm: str, src: str, dst: str):
        walk = {"none": (), "var1": (("src", src),), "var2": (("src", src), ("dst", dst))}[vm]
        if not walk:
            return None
        program = []
        for name, net in walk:
            program += [
                STLVmFlowVar(name=name, min_value=f"{net}{HOSTS[0]}",
                             max_value=f"{net}{HOSTS[1]}", size=4, op="inc"),
                STLVmWrFlowVar(fv_name=name, pkt_offset=f"IP.{name}"),
            ]
        return STLScVmRaw([*program, STLVmFixIpv4(offset="IP")])

    def stream(self, frame: int, rate: int, src: str, dst: str, vm) -> STLStream:
        base = Ether() / IP(src=f"{src}{HOSTS[0]}", dst=f"{dst}{HOSTS[0]}") / \
            UDP(sport=1024, dport=1024, chksum=0)  # checksum 0: addresses change per packet
        pad = b"\x00" * max(0, frame - FCS - len(base))
        return STLStream(packet=STLPktBuilder(pkt=base / pad, vm=vm),
                         mode=STLTXCont(pps=rate))

    def get_streams(self, port_id=0, direction=0, tunables=(), **kwargs):
        args = self.parser().parse_args(list(tunables))
        src, dst = self.networks(direction, args.offset)
        vm = self.field_engine(args.vm, src, dst)
        return [self.stream(frame, rate, src, dst, vm) for frame, rate in frame_sizes(args.size)]


def register():
    return BenchProfile()
