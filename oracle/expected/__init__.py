"""What an engine should report: the expected output per profile and t0, for time and count windows, time-annotated data, several windows, and streamed."""
