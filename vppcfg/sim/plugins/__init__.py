"""Behaviour models of VPP plugins. Each module exposes HANDLERS: a mapping from
API message name to ``fn(state, args) -> Response``, and may register
cascade hooks on the state (see SimState.on_delete)."""
