"""The torch_reduce benchmark: sum_v7 against every peer, in the scenarios a model meets.

Run it with ``python -m benchmarks`` (``--help`` for the options). One module per
concern: ``cli`` (options, the run), ``context`` (device, settings, rotation),
``inputs`` (cases and their buffers), ``peers`` (the registry of what is timed),
``roofline`` (the read-only ceiling and its sweep), ``check`` (every result
against a float64 / exact reference before it is timed), ``timing`` (eager,
CUDA-graph and host-cost timing), ``runner`` (check then time every peer on a
case), ``scenarios/`` (one file each), ``report`` and ``plots``; ``compare``
sets several runs' results side by side.
"""
