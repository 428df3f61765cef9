"""One module per scenario. Each has NAME, TITLE, METHOD (how it is measured,
for the report), NEEDS_CUDA, and run(ctx) -> runner.Outcome. Adding a scenario
is adding a module and listing it here."""

from benchmarks.scenarios import dims, eager, graph, layouts, producer

SCENARIOS = {module.NAME: module for module in (eager, graph, producer, layouts, dims)}
