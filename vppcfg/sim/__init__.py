"""A VPP simulator that speaks VPP's binary API on a unix socket.

Layout: `protocol` is the seam; `server` (+ `codec`) is the wire side;
`state` and `dataplane` are the behaviour model of VPP's core; `plugins/`
model VPP plugins (bond, tap, vxlan, linux-cp, sflow, acl); `cli` accepts the
VPP CLI (cli_inband) by translating commands to API calls on the same model.
"""
