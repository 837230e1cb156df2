"""Reading run reports back: aligned runs, summaries, diffs between runs, EARL, and matrix runs across engines."""
