"""The Pi service that ties engine, vision, hardware and firmware bridge together."""
