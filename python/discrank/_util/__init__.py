"""What every layer shares: the errors and warnings, argument checks, player labels, parameters, threads,
progress reports, the calendar and the per-game losses."""
