"""JSON Schema (draft 2020-12) of a `trex-loadtest` run file (ramp or ndr).

It pins the layout graph.rb reads (`vars`, `stats`) loosely and the DUT-stats contract
(`--dut-stats`: `samples[].dut`, `trials[].dut`, `summary.dut`, `vars.dut_stats`,
`vars.dut_ports`) strictly; other keys may be added (every object allows more keys).
`python -m loadtest.results_schema > results.schema.json` writes it out.
"""

from __future__ import annotations

import json
import sys

COUNT = {"type": "integer", "minimum": 0}
DIRECTION = "^[0-9]+->[0-9]+$"
CAUSES = ("before-dut", "dut-drop", "after-dut", "unaccounted")


def _obj(required: list[str], **props: dict) -> dict:
    return {"type": "object", "required": required, "properties": props}


def _defs() -> dict:
    # tx_error came later: files written before it still validate
    interface = _obj(["rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drops", "rx_miss",
                      "rx_error", "punt"],
                     **dict.fromkeys(("rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
                                      "drops", "rx_miss", "rx_error", "punt", "tx_error"),
                                     COUNT))
    error = _obj(["node", "reason", "packets"], node={"type": "string"},
                 reason={"type": "string"}, packets={"type": "integer", "minimum": 1})
    node = _obj(["node", "calls", "vectors", "clocks", "vectors_per_call",
                 "clocks_per_packet"], node={"type": "string"}, calls=COUNT, vectors=COUNT,
                clocks=COUNT, vectors_per_call={"type": "number", "minimum": 0},
                clocks_per_packet={"type": "number", "minimum": 0})
    cause = _obj(["cause", "packets", "evidence"], cause={"enum": list(CAUSES)},
                 packets={"type": "integer", "minimum": 1}, evidence={"type": "string"},
                 node={"type": "string"}, reason={"type": "string"})
    cause["if"] = {"properties": {"cause": {"const": "dut-drop"}}}
    cause["then"] = {"required": ["node", "reason"]}
    attribution = {"type": "object", "propertyNames": {"pattern": DIRECTION},
                   "additionalProperties": {"type": "array", "items": {"$ref": "#/$defs/cause"}}}
    nodes = {"type": ["array", "null"], "items": {"$ref": "#/$defs/node"}}
    # loss_attribution is added when the run ends: a checkpoint written mid-run has none yet
    delta = _obj(["interfaces", "errors", "nodes", "vector_rate", "workers"],
                 interfaces={"type": "object", "additionalProperties": {"$ref": "#/$defs/if"}},
                 errors={"type": "array", "items": {"$ref": "#/$defs/error"}, "maxItems": 5},
                 nodes={**nodes, "maxItems": 5},
                 nodes_seconds={"type": ["number", "null"]},
                 nodes_note={"type": "string"},
                 vector_rate={"type": "number", "minimum": 0}, workers=COUNT,
                 loss_attribution={"$ref": "#/$defs/attribution"})
    saturation = _obj(["node", "vectors_per_call", "from_pps", "direction"],
                      node={"type": "string"}, vectors_per_call={"type": "number"},
                      from_pps={"type": "number"}, direction={"type": "string",
                                                              "pattern": DIRECTION})
    summary = {
        "oneOf": [
            _obj(["available", "reason", "interfaces", "errors", "nodes", "loss_attribution",
                  "saturation", "verdict"],
                 available={"const": True}, reason={"type": "null"},
                 interfaces={"type": "object", "additionalProperties": {"$ref": "#/$defs/if"}},
                 errors={"type": "array", "items": {"$ref": "#/$defs/error"}, "maxItems": 10},
                 nodes={**nodes, "maxItems": 5},
                 loss_attribution={"$ref": "#/$defs/attribution"},
                 saturation={"oneOf": [{"type": "null"}, saturation]},
                 verdict={"type": "string", "minLength": 1}),
            _obj(["available", "reason", "verdict"], available={"const": False},
                 reason={"type": "string", "minLength": 1},
                 verdict={"type": "string", "minLength": 1}),
        ]
    }
    return {"if": interface, "error": error, "node": node, "cause": cause,
            "attribution": attribution, "delta": delta, "summary": summary}


def schema() -> dict:
    run_vars = _obj([], dut_stats={"type": "string"},
                    dut_ports={"type": ["object", "null"],
                               "propertyNames": {"pattern": "^[0-9]+$"},
                               "additionalProperties": {"type": "string"}})
    with_dut = {"type": "object", "properties": {"dut": {"$ref": "#/$defs/delta"}}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:vppcfg:trex-loadtest:results",
        "title": "trex-loadtest run",
        **_obj(["vars", "status"], vars=run_vars, stats={"type": "object"},
               samples={"type": "array", "items": with_dut},
               trials={"type": "array", "items": with_dut},
               summary={"type": "object", "properties": {"dut": {"$ref": "#/$defs/summary"}}},
               status={"enum": ["running", "complete", "interrupted", "failed", "invalid"]}),
        "$defs": _defs(),
    }


if __name__ == "__main__":
    json.dump(schema(), sys.stdout, indent=1)
    sys.stdout.write("\n")
