"""Tables linked through an MQTT broker: one hosts a game, others join it (docs/remote.md)."""
