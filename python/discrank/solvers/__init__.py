"""The Python side of the numerics: Newton's method and L-BFGS over the core's objectives, a fit's data and
plan, the prior's tuning, the whole-history problem of the dynamic model and its updates."""
