"""Tables linked over MQTT: one game played at several real (or simulated) tables."""
