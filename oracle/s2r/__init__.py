"""SECRET's stream-to-relation side: window scope and t0, report decisions (Report, Tick) for time and count windows."""
