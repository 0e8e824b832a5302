"""slipway's Python helpers for tasks of a slipway program.

slipway.courier: courier RPC over UCX (serve methods, call them by node name).
slipway.replay: the client of a replay node (tables, queues, pools of workers).
"""
