"""Tables linked over MQTT: remote play, the club screen, Home Assistant discovery."""
