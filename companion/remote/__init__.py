"""Tables linked over MQTT: a game hosted by one table and joined by others through a broker (a
club's Mosquitto), each table receiving only the cards it may know, the broker's access list
keeping every table's hands from the others; plus the broker's side for tests and the local
simulation (docs/remote.md)."""
