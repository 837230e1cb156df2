"""Stream input and output: the file readers (N-Quads, TriG, temporal N-Triples, CSRBench), time-annotated data, and YABench's generator."""
