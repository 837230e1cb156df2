"""Live load runs in wall-clock time (YABench's load experiments): the feeder, resource sampling, the experiment runner and its pictures."""
