"""The simulated table: one more client of the service, as the real table's devices are.

Its board, its dealer, its bots and its camera speak to the service only through
`Service.submit` and follow its stream of updates; the service imports nothing of it.
"""
